/**
 * Server mode's person-facing handlers: AskUserQuestion and ExitPlanMode
 * asked through the MCP client that made the call (MCP elicitation, form
 * mode). The server runs each call inside {@link withMcpClient}, so one
 * process serving several HTTP clients asks the right one.
 *
 * @module
 */
import { AsyncLocalStorage } from "node:async_hooks";
// @ts-types="@modelcontextprotocol/sdk/server/index"
import type { Server } from "@modelcontextprotocol/sdk/server/index.js";
// @ts-types="@modelcontextprotocol/sdk/types"
import type * as SdkTypes from "@modelcontextprotocol/sdk/types.js";
// @ts-types="@modelcontextprotocol/sdk/types"
import type { ElicitRequestFormParams, ElicitResult } from "@modelcontextprotocol/sdk/types.js";
import { UnavailableError } from "../errors.ts";
import type { InteractionOptions, Question, UserAnswers } from "../tool/interaction.ts";

/** Tools that need a person: served only to clients that support elicitation. */
export const INTERACTIVE_TOOLS: readonly string[] = Object.freeze(["AskUserQuestion", "ExitPlanMode"]);

const current = new AsyncLocalStorage<Server>();

/** Runs `fn` with `server` as the client to ask for the handlers of {@link mcpInteraction}. */
export function withMcpClient<T>(server: Server, fn: () => T): T {
  return current.run(server, fn);
}

/**
 * True when the connected client accepts form elicitation (an empty
 * `elicitation` capability means form, as the specification says).
 */
export function clientCanElicit(server: Server): boolean {
  const caps = server.getClientCapabilities()?.elicitation as { form?: unknown; url?: unknown } | undefined;
  return caps !== undefined && (caps.form !== undefined || caps.url === undefined);
}

/**
 * Sends a form elicitation to the client. Uses the raw request so clients
 * that declare `elicitation: {}` (form, before modes existed) are asked too.
 */
export async function elicitForm(
  server: Server,
  params: Omit<ElicitRequestFormParams, "mode">,
  signal: AbortSignal,
): Promise<ElicitResult> {
  // the SDK's schemas load with the first question, not with this module
  const { ElicitResultSchema } = await import("@modelcontextprotocol/sdk/types.js") as typeof SdkTypes;
  return await server.request(
    { method: "elicitation/create", params: { mode: "form", ...params } },
    ElicitResultSchema,
    { signal, timeout: 2_147_483_647 }, // a person takes the time they take; the signal stops it
  );
}

function clientOrThrow(tool: string): Server {
  const server = current.getStore();
  if (!server || !clientCanElicit(server)) {
    throw new UnavailableError(
      `${tool} needs a person, and this MCP client does not support elicitation, so nobody can answer: ` +
        "decide with the information you have and state your assumptions",
    );
  }
  return server;
}

type Property = NonNullable<ElicitRequestFormParams["requestedSchema"]["properties"]>[string];

function questionSchema(questions: readonly Question[]): Record<string, Property> {
  const properties: Record<string, Property> = {};
  questions.forEach((q, i) => {
    const choices = q.options.map((o) => ({ const: o.label, title: `${o.label}: ${o.description}` }));
    properties[`q${i + 1}`] = q.multiSelect
      ? { type: "array", title: q.header, description: q.question, items: { anyOf: choices } }
      : { type: "string", title: q.header, description: q.question, oneOf: choices };
    properties[`q${i + 1}_other`] = {
      type: "string",
      title: `${q.header}: your own answer`,
      description: "Type an answer instead of picking one",
    };
  });
  return properties;
}

function answersFrom(questions: readonly Question[], content: Record<string, unknown>): UserAnswers {
  const answers: Record<string, string | string[]> = {};
  questions.forEach((q, i) => {
    const other = content[`q${i + 1}_other`];
    const picked = content[`q${i + 1}`];
    if (typeof other === "string" && other.trim() !== "") answers[q.question] = other.trim();
    else if (Array.isArray(picked)) answers[q.question] = picked.map(String);
    else if (typeof picked === "string") answers[q.question] = picked;
  });
  return answers;
}

/**
 * AskUserQuestion and ExitPlanMode handlers that ask the MCP client of the
 * current call (see {@link withMcpClient}); without one that supports
 * elicitation they fail with a clear error.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { mcpInteraction } from "./interaction.ts";
 * import { builtinTools } from "../tools/mod.ts";
 * const tools = builtinTools({ interaction: mcpInteraction() });
 * assert.ok(tools.some((t) => t.name === "AskUserQuestion"));
 * ```
 */
export function mcpInteraction(): InteractionOptions {
  return {
    askUser: async (questions, signal) => {
      const server = clientOrThrow("AskUserQuestion");
      const answer = await elicitForm(server, {
        message: questions.length === 1
          ? questions[0].question
          : `Please answer ${questions.length} questions`,
        requestedSchema: { type: "object", properties: questionSchema(questions) },
      }, signal);
      if (answer.action !== "accept") {
        throw new UnavailableError(
          `The user did not answer (they chose "${answer.action}"): decide with the information you have ` +
            "and state your assumptions",
        );
      }
      return answersFrom(questions, (answer.content ?? {}) as Record<string, unknown>);
    },
    approvePlan: async (request, signal) => {
      const server = clientOrThrow("ExitPlanMode");
      const asks = request.allowedPrompts.map((p) => `${p.tool}: ${p.prompt}`).join("; ");
      const answer = await elicitForm(server, {
        message: `Approve this plan and leave plan mode?\n\n${request.plan ?? "(no plan text)"}${
          asks ? `\n\nPermissions asked for: ${asks}` : ""
        }`,
        requestedSchema: {
          type: "object",
          properties: {
            approve: { type: "boolean", title: "Approve the plan", default: false },
            feedback: { type: "string", title: "Feedback", description: "What to change, if anything" },
          },
          required: ["approve"],
        },
      }, signal);
      const content = (answer.content ?? {}) as Record<string, unknown>;
      const feedback = typeof content.feedback === "string" ? content.feedback : undefined;
      return { approved: answer.action === "accept" && content.approve === true, feedback };
    },
  };
}

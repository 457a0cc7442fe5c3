/**
 * Agent: runs a sub-agent (its own history, a view of the parent's tools) in
 * the foreground, or in the background as a task that TaskOutput reads and
 * TaskStop stops; `resume` continues an agent's history by id.
 *
 * @module
 */
import { z } from "zod";
import { ConflictError, NotFoundError, UnavailableError } from "../errors.ts";
import { defineTool, type Tool, type ToolContext } from "../tool/define_tool.ts";
import type { ToolRegistry } from "../tool/registry.ts";
import type { RunOptions } from "../tool/run_tool.ts";
import type { Session } from "../session/session.ts";
import { PERMISSION_MODES, PLAN_MODE_BLOCKED } from "../permissions/modes.ts";
import { newTaskId } from "../tasks/types.ts";
import { startBackgroundAgent } from "../loop/background_agent.ts";
import { type AgentResult, runAgentToEnd } from "../loop/agent_loop.ts";
import { type AgentType, GENERAL_PURPOSE } from "../loop/agent_types.ts";
import type { ChatMessage, ModelClient } from "../loop/client.ts";
import { addUsage, type AgentEvent, emptyUsage, type Usage } from "../loop/events.ts";
import type { RetryOptions } from "../loop/retry.ts";

/**
 * Turns a sub-agent may take when the call does not say.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { DEFAULT_AGENT_MAX_TURNS } from "./agent.ts";
 * assert.equal(DEFAULT_AGENT_MAX_TURNS, 30);
 * ```
 */
export const DEFAULT_AGENT_MAX_TURNS = 30;
/** Time limit of a foreground Agent call (ms). */
export const AGENT_TIMEOUT_MS = 1_800_000;

/**
 * Options of {@link agentTool}.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { createModelClient, createRuntime } from "../../mod.ts";
 * import { agentTool, type AgentToolOptions } from "./agent.ts";
 * await using rt = createRuntime({ roots: [Deno.cwd()] });
 * const options: AgentToolOptions = {
 *   client: createModelClient({ baseUrl: "http://127.0.0.1:11434/v1" }),
 *   model: "qwen3",
 *   registry: () => rt.registry,
 *   runOptions: () => rt.runOptions,
 *   maxTurns: 20,
 * };
 * assert.equal(agentTool(options).name, "Agent");
 * ```
 */
export interface AgentToolOptions {
  /** The endpoint sub-agents use. */
  client: ModelClient;
  /** The parent's model, or a function giving the current one. */
  model: string | (() => string);
  /** The parent's tools; sub-agents get a view of them. */
  registry: ToolRegistry | (() => ToolRegistry);
  /**
   * Run options for sub-agent tool calls (approver, hooks, rules, preset), or a
   * function giving them. Session, signal, env and fetch come from the call.
   */
  runOptions?: RunOptions | (() => RunOptions);
  /** Agent types. Default: the general-purpose type alone. */
  agentTypes?: readonly AgentType[];
  /** Default turn limit of a sub-agent. Default {@link DEFAULT_AGENT_MAX_TURNS}. */
  maxTurns?: number;
  /** Stream model answers. Default true. */
  stream?: boolean;
  /** Retry tuning for sub-agent requests. */
  retry?: Omit<RetryOptions, "signal" | "onRetry" | "canRetry">;
}

/**
 * What the Agent tool returns as data.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import type { AgentToolData } from "./agent.ts";
 * const data: AgentToolData = {
 *   agentId: "a1b2c3d4",
 *   status: "completed",
 *   text: "The tests pass",
 *   usage: {
 *     promptTokens: 900,
 *     completionTokens: 100,
 *     totalTokens: 1000,
 *     requests: 3,
 *     toolCalls: 2,
 *     durationMs: 4200,
 *   },
 * };
 * assert.equal(data.usage.totalTokens, 1000);
 * ```
 */
export interface AgentToolData {
  /** The agent id (use with `resume`, and with TaskOutput when in the background). */
  agentId: string;
  /** Why it stopped, or `running` for a background start. */
  status: AgentResult["stopReason"] | "running";
  /** The agent's final text. */
  text: string;
  /** Usage over every run of this agent. */
  usage: Usage & { durationMs: number };
  /** The output file of a background agent. */
  outputPath?: string;
}

interface AgentRecord {
  id: string;
  type: AgentType;
  history: ChatMessage[];
  usage: Usage;
  durationMs: number;
  running: boolean;
}

function agentRecords(session: Session): Map<string, AgentRecord> {
  return session.slot("agents", () => new Map<string, AgentRecord>());
}

/**
 * Makes the Agent tool for an endpoint and a parent registry.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { createModelClient } from "../loop/client.ts";
 * import { ToolRegistry } from "../tool/registry.ts";
 * import { agentTool } from "./agent.ts";
 * const registry = new ToolRegistry();
 * registry.register(
 *   agentTool({ client: createModelClient({ baseUrl: "http://127.0.0.1:1/v1" }), model: "m", registry }),
 * );
 * assert.ok(registry.has("Task"));
 * ```
 */
export function agentTool(options: AgentToolOptions): Tool {
  const types = options.agentTypes?.length ? [...options.agentTypes] : [GENERAL_PURPOSE];
  const typeNames = types.map((t) => t.name);
  return defineTool({
    name: "Agent",
    sideEffect: "Spawns",
    timeoutMs: AGENT_TIMEOUT_MS,
    description: [
      "Starts a sub-agent with its own conversation to carry out a multi-step task and report back.",
      "Give it a complete, self-contained prompt: it does not see this conversation. Its final answer is",
      "returned to you (not shown to the user). Use run_in_background to keep working meanwhile and read",
      "it later with TaskOutput; use resume with an agent id to continue an earlier agent.",
      "Agent types:",
      ...types.map((t) => `- ${t.name}: ${t.description}${t.tools ? ` (tools: ${t.tools.join(", ")})` : ""}`),
    ].join("\n"),
    input: z.strictObject({
      description: z.string().min(1).describe("A short (3-5 word) description of the task"),
      prompt: z.string().min(1).describe("The task for the agent, complete and self-contained"),
      subagent_type: z.string().min(1).describe(`The agent type to use: one of ${typeNames.join(", ")}`),
      model: z.string().min(1).optional().describe(
        "Model for this agent. Default: the type's, else the current one",
      ),
      resume: z.string().min(1).optional().describe("Id of an earlier agent whose conversation to continue"),
      run_in_background: z.boolean().optional().describe(
        "Run as a background task and return its id at once. Default false",
      ),
      max_turns: z.number().int().min(1).max(200).optional().describe("Most model turns the agent may take"),
      name: z.string().min(1).optional().describe("A name for the agent, shown in logs"),
      mode: z.enum(PERMISSION_MODES).optional().describe(
        "Permission mode for the agent: plan removes tools that change things; other modes never widen the session's",
      ),
    }),
    summarize: (input) =>
      `${input.subagent_type}${input.name ? ` "${input.name}"` : ""}: ${input.description}`,
    execute: async (input, ctx) => {
      const records = agentRecords(ctx.session);
      let record: AgentRecord;
      if (input.resume !== undefined) {
        const found = records.get(input.resume);
        if (!found) {
          const known = [...records.keys()];
          throw new NotFoundError(
            `No agent with id "${input.resume}"${
              known.length ? `: known ids are ${known.join(", ")}` : ": no agent has run in this session"
            }`,
          );
        }
        if (found.running) {
          throw new ConflictError(`Agent "${input.resume}" is still running: wait for it with TaskOutput`);
        }
        record = found;
      } else {
        const type = types.find((t) => t.name === input.subagent_type);
        if (!type) {
          throw new NotFoundError(
            `No agent type "${input.subagent_type}": use one of ${typeNames.join(", ")}`,
          );
        }
        record = {
          id: newTaskId("a"),
          type,
          history: [],
          usage: emptyUsage(),
          durationMs: 0,
          running: false,
        };
        records.set(record.id, record);
      }
      const parent = typeof options.registry === "function" ? options.registry() : options.registry;
      const allowNested = record.type.tools?.includes("Agent") ?? false;
      const view = parent.view({
        ...(record.type.tools ? { include: record.type.tools } : {}),
        ...(allowNested ? {} : { exclude: ["Agent"] }),
        ...(input.mode === "plan" || ctx.session.mode === "plan"
          ? { excludeSideEffects: PLAN_MODE_BLOCKED }
          : {}),
      });
      const baseRunOptions = typeof options.runOptions === "function"
        ? options.runOptions()
        : options.runOptions;
      const parentModel = typeof options.model === "function" ? options.model : () => options.model as string;
      const model = () => input.model ?? record.type.model ?? parentModel();
      const run = (signal: AbortSignal, onEvent: (e: AgentEvent) => void) => {
        record.running = true;
        return runAgentToEnd({
          client: options.client,
          model,
          registry: view,
          runOptions: { ...baseRunOptions, session: ctx.session, env: ctx.env, fetch: ctx.fetch },
          systemPrompt: record.type.systemPrompt || GENERAL_PURPOSE.systemPrompt,
          history: record.history,
          prompt: input.prompt,
          maxTurns: input.max_turns ?? options.maxTurns ?? DEFAULT_AGENT_MAX_TURNS,
          stream: options.stream,
          retry: options.retry,
          signal,
          sessionEvents: false,
        }, onEvent).then((result) => {
          addUsage(record.usage, result.usage);
          record.durationMs += result.durationMs;
          return result;
        }).finally(() => (record.running = false));
      };
      if (input.run_in_background) {
        return startBackground(
          record,
          input.name ? `${input.name}: ${input.description}` : input.description,
          run,
          ctx,
        );
      }
      const result = await run(ctx.signal, (e) => progress(e, ctx.onOutput));
      if (result.stopReason === "error") throw new UnavailableError(`The sub-agent failed: ${result.error}`);
      return finalOutput(record, result);
    },
  });
}

type Runner = (signal: AbortSignal, onEvent: (e: AgentEvent) => void) => Promise<AgentResult>;

function progress(e: AgentEvent, write: (line: string) => void): void {
  if (e.type === "tool_start") write(`→ ${e.tool}${e.summary ? ` ${e.summary}` : ""}\n`);
  else if (e.type === "tool_end" && !e.ok) write(`  ${e.result.text.split("\n")[0]}\n`);
}

function usageData(record: AgentRecord): AgentToolData["usage"] {
  return { ...record.usage, durationMs: Math.round(record.durationMs) };
}

function usageLine(record: AgentRecord): string {
  const u = usageData(record);
  return `${u.totalTokens} tokens, ${u.toolCalls} tool calls, ${(u.durationMs / 1000).toFixed(1)} s`;
}

function finalOutput(record: AgentRecord, result: AgentResult): { text: string; data: AgentToolData } {
  const note = result.stopReason === "completed" ? "" : `\n\n(The agent stopped early: ${result.stopReason})`;
  const text = `${
    result.text || "(the agent gave no final text)"
  }${note}\n\nagentId: ${record.id} (pass it as resume to continue this agent)\nusage: ${usageLine(record)}`;
  return {
    text,
    data: { agentId: record.id, status: result.stopReason, text: result.text, usage: usageData(record) },
  };
}

function startBackground(
  record: AgentRecord,
  description: string,
  run: Runner,
  ctx: ToolContext,
): { text: string; data: AgentToolData } {
  const handle = startBackgroundAgent({
    id: record.id,
    description,
    session: ctx.session,
    startedAt: ctx.now(),
    run: (signal, log) => run(signal, (e) => progress(e, log)),
    describe: (result) => finalOutput(record, result).text,
  });
  return {
    text:
      `Started agent "${description}" in the background: task id ${record.id}, output file ${handle.outputPath}. ` +
      `Read its result with TaskOutput (task_id "${record.id}") or stop it with TaskStop; resume it later with this id.`,
    data: {
      agentId: record.id,
      status: "running",
      text: "",
      usage: usageData(record),
      outputPath: handle.outputPath,
    },
  };
}

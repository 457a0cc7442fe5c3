/**
 * Terminal handlers for the tools that wait for a person: AskUserQuestion
 * (numbered choices or free text) and ExitPlanMode (approve, reject, or
 * reject with feedback). Prompts go to stderr so `--json` stdout stays clean.
 * When stdin is not a terminal there are no handlers, so nothing ever waits
 * on input that cannot come; the tools then fail with a clear error.
 *
 * @module
 */
import { AbortedError, UnavailableError } from "../errors.ts";
import type {
  AskUserHandler,
  InteractionOptions,
  PlanApprover,
  Question,
  UserAnswers,
} from "../tool/interaction.ts";
import type { CliIo } from "./command.ts";

/** Text read past the last returned line, per stream (a terminal may deliver several lines at once). */
const leftovers = new WeakMap<ReadableStream<Uint8Array>, string>();

/**
 * Reads one line (without its line break) from `stdin`; null at end of
 * input. The stream is locked only while reading, and text after the line
 * is kept for the next call. An abort rejects with {@link AbortedError} and
 * leaves the stream usable.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { readTerminalLine } from "./interactive.ts";
 * const stdin = new Blob(["one\ntwo\n"]).stream();
 * assert.ok(await readTerminalLine(stdin) === "one");
 * assert.ok(await readTerminalLine(stdin) === "two");
 * assert.ok(await readTerminalLine(stdin) === null);
 * ```
 */
export async function readTerminalLine(
  stdin: ReadableStream<Uint8Array>,
  signal?: AbortSignal,
): Promise<string | null> {
  let buffer = leftovers.get(stdin) ?? "";
  const take = (end: number, skip: number): string => {
    leftovers.set(stdin, buffer.slice(end + skip));
    return buffer.slice(0, end).replace(/\r$/, "");
  };
  let nl = buffer.indexOf("\n");
  if (nl >= 0) return take(nl, 1);
  if (signal?.aborted) throw new AbortedError("Input was cancelled");
  const reader = stdin.getReader();
  const dec = new TextDecoder();
  const onAbort = () => reader.releaseLock(); // rejects the pending read; unread input stays queued
  signal?.addEventListener("abort", onAbort, { once: true });
  try {
    for (;;) {
      let chunk: ReadableStreamReadResult<Uint8Array>;
      try {
        chunk = await reader.read();
      } catch (err) {
        leftovers.set(stdin, buffer);
        if (signal?.aborted) throw new AbortedError("Input was cancelled");
        throw err;
      }
      if (chunk.done) {
        leftovers.set(stdin, "");
        return buffer === "" ? null : buffer.replace(/\r$/, "");
      }
      buffer += dec.decode(chunk.value, { stream: true });
      nl = buffer.indexOf("\n");
      if (nl >= 0) return take(nl, 1);
    }
  } finally {
    signal?.removeEventListener("abort", onAbort);
    if (!signal?.aborted) reader.releaseLock();
  }
}

async function prompt(io: CliIo, text: string, signal: AbortSignal): Promise<string> {
  io.err(text);
  const line = await readTerminalLine(io.stdin, signal);
  if (line === null) throw new UnavailableError("Standard input closed before the user answered");
  return line.trim();
}

/** Most times an empty or invalid answer is asked again before giving up. */
const MAX_ATTEMPTS = 3;

/**
 * Picks labels from a reply: numbers (`2`, `1,3`) or a label typed out; any
 * other text is a free-text answer. Returns undefined for a reply to ask again.
 */
function interpret(q: Question, reply: string): string | string[] | undefined {
  if (reply === "") return undefined;
  if (/^\d+(\s*,\s*\d+)*$/.test(reply)) {
    const picks = [...new Set(reply.split(",").map((n) => Number(n.trim())))];
    if (picks.some((n) => n < 1 || n > q.options.length)) return undefined;
    if (!q.multiSelect && picks.length > 1) return undefined;
    const labels = picks.map((n) => q.options[n - 1].label);
    return q.multiSelect ? labels : labels[0];
  }
  const byLabel = q.options.find((o) => o.label.toLowerCase() === reply.toLowerCase());
  if (byLabel) return q.multiSelect ? [byLabel.label] : byLabel.label;
  return reply;
}

/**
 * The terminal question handler, or undefined when stdin is not a terminal.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { terminalAskUser } from "./interactive.ts";
 * assert.ok(terminalAskUser({ isTerminal: false } as never) === undefined);
 * ```
 */
export function terminalAskUser(io: CliIo): AskUserHandler | undefined {
  if (!io.isTerminal) return undefined;
  return async (questions, signal) => {
    const answers: UserAnswers = {};
    for (const q of questions) {
      const lines = [
        "",
        `[${q.header}] ${q.question}`,
        ...q.options.map((o, i) => `  ${i + 1}. ${o.label}${o.description ? ` - ${o.description}` : ""}`),
      ];
      const how = q.multiSelect
        ? `Pick one or more (e.g. 1,${q.options.length}), or type your own answer: `
        : `Pick 1-${q.options.length}, or type your own answer: `;
      io.err(lines.join("\n") + "\n");
      let answer: string | string[] | undefined;
      for (let attempt = 0; answer === undefined && attempt < MAX_ATTEMPTS; attempt++) {
        answer = interpret(q, await prompt(io, how, signal));
        if (answer === undefined && attempt < MAX_ATTEMPTS - 1) {
          io.err("  Please pick a listed number or type an answer.\n");
        }
      }
      if (answer !== undefined) answers[q.question] = answer;
    }
    return answers;
  };
}

/**
 * The terminal plan approver, or undefined when stdin is not a terminal.
 * `y` approves; `n` or an empty line rejects; other text rejects with that
 * text as feedback for the model.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { terminalPlanApprover } from "./interactive.ts";
 * assert.ok(terminalPlanApprover({ isTerminal: false } as never) === undefined);
 * ```
 */
export function terminalPlanApprover(io: CliIo): PlanApprover | undefined {
  if (!io.isTerminal) return undefined;
  return async (request, signal) => {
    const lines = ["", "Proposed plan:"];
    lines.push(
      request.plan?.trim()
        ? request.plan.trim().split("\n").map((l) => `  ${l}`).join("\n")
        : "  (no plan text)",
    );
    if (request.allowedPrompts.length) {
      lines.push(
        "It asks to be allowed to:",
        ...request.allowedPrompts.map((p) => `  - ${p.tool}: ${p.prompt}`),
      );
    }
    io.err(lines.join("\n") + "\n");
    const reply = await prompt(
      io,
      "Approve and leave plan mode? [y]es / [n]o, or type what to change: ",
      signal,
    );
    const lower = reply.toLowerCase();
    if (lower === "y" || lower === "yes") return { approved: true };
    if (lower === "" || lower === "n" || lower === "no") return { approved: false };
    return { approved: false, feedback: reply };
  };
}

/**
 * Both terminal handlers, for `builtinTools({ interaction })`; an empty object
 * when stdin is not a terminal.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { terminalInteraction } from "./interactive.ts";
 * const none = terminalInteraction({ isTerminal: false } as never);
 * assert.ok(none.askUser === undefined && none.approvePlan === undefined);
 * ```
 */
export function terminalInteraction(io: CliIo): InteractionOptions {
  if (!io.isTerminal) return {};
  return { askUser: terminalAskUser(io), approvePlan: terminalPlanApprover(io) };
}

/**
 * The one runner every call goes through. {@link runTool} wraps the
 * middleware around the call (outermost first), then the phases run top to
 * bottom, each a function below in the same order:
 *
 * 1. `resolve`: the name or alias → the tool (unknown, removed and disabled tools stop here).
 * 2. `parse`: a JSON string or an object → the input the tool's Zod schema accepts.
 * 3. `preHooks`: the PreToolUse hooks add context, replace the input, or decide.
 * 4. `decide`: one call to `decideCall` in `permissions/decide.ts`, which holds every
 *    permission rule (rules, mode, preset, plan mode, side-effect classes, the hooks'
 *    decision, the approver's answer) and says allow or deny with the reason.
 * 5. `execute`: the tool under the caller's signal and the time limit.
 * 6. `finish`: the PostToolUse hooks, truncation, the result and the `tool_end` event.
 *
 * A phase that refuses returns a `Failure` (errors are data, never thrown
 * past the runner) and the call goes straight to `finish`.
 *
 * @module
 */
import { AbortedError, describeError, type ErrorCode, ToolTimeoutError } from "../errors.ts";
import { type CallDecision, decideCall, type HookVerdict } from "../permissions/decide.ts";
import type { ConfirmationPreset } from "../permissions/modes.ts";
import type { PermissionRules } from "../permissions/rules.ts";
import { isReadOnly } from "../permissions/side_effect.ts";
import { Session } from "../session/session.ts";
import type { Tool, ToolContext, ToolOutput } from "./define_tool.ts";
import type { Approver, Hooks, ToolMiddleware } from "./hooks.ts";
import { formatIssues } from "./json_schema.ts";
import type { ToolRegistry } from "./registry.ts";
import type { ToolCallRequest, ToolCallResult, ToolEvent } from "./tool_call.ts";
import { DEFAULT_MAX_OUTPUT_CHARS, truncateOutput } from "./truncate.ts";

// the call's shapes live in tool_call.ts (hooks.ts needs them too); importers find them here as before
export type { ToolCallRequest, ToolCallResult } from "./tool_call.ts";

/**
 * Time limit of one call when neither the call nor the tool sets one (ms).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { DEFAULT_TOOL_TIMEOUT_MS } from "./run_tool.ts";
 * assert.equal(DEFAULT_TOOL_TIMEOUT_MS, 5 * 60_000);
 * ```
 */
export const DEFAULT_TOOL_TIMEOUT_MS = 300_000;
/** Largest input accepted as a JSON string (characters). */
export const MAX_INPUT_JSON_CHARS = 5_000_000;
/** Streamed output kept for the message of a call that timed out or was aborted (characters, about). */
const PARTIAL_OUTPUT_CHARS = 4 * DEFAULT_MAX_OUTPUT_CHARS;

/**
 * Options of {@link runTool} and {@link executeToolCalls}.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { builtinTools, type RunOptions, runTool, Session, ToolRegistry } from "../../mod.ts";
 * await using session = new Session({ roots: [Deno.cwd()], mode: "plan" });
 * const options: RunOptions = { session, timeoutMs: 10_000, rules: { deny: ["Read(/etc/**)"] } };
 * const r = await runTool(new ToolRegistry(builtinTools()), {
 *   name: "Read",
 *   input: { file_path: "/etc/hosts" },
 * }, options);
 * assert.equal(r.error?.code, "permission_denied");
 * ```
 */
export interface RunOptions {
  /** The session. Default: a new one rooted at the process cwd. */
  session?: Session;
  /** Cancels the call. */
  signal?: AbortSignal;
  /** Time limit of the call (ms); 0 for none. Default: the tool's, else {@link DEFAULT_TOOL_TIMEOUT_MS}. */
  timeoutMs?: number;
  /** Hooks. */
  hooks?: Hooks;
  /** Asked when the decision is `ask`. Without one, such calls are refused. */
  approver?: Approver;
  /** Allow, deny and ask rules. */
  rules?: PermissionRules;
  /** Which classes ask in default mode. Default `safe`. */
  preset?: ConfirmationPreset;
  /** Progress events. */
  onEvent?: (event: ToolEvent) => void;
  /** Middleware around the runner, outermost first. */
  middleware?: readonly ToolMiddleware[];
  /** Injected fetch. Default: the global one. */
  fetch?: typeof fetch;
  /** Injected clock. Default: `Date.now`. */
  now?: () => number;
  /** Environment for tools. Default: empty. */
  env?: Readonly<Record<string, string>>;
}

/**
 * Runs one call through the whole pipeline. Never throws for a tool's own
 * failure: errors come back as results with `ok: false`.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { z } from "zod";
 * import { defineTool, runTool, ToolRegistry } from "../../mod.ts";
 * const reg = new ToolRegistry([defineTool({
 *   name: "Add",
 *   description: "Adds two numbers",
 *   sideEffect: "None",
 *   input: z.strictObject({ a: z.number(), b: z.number() }),
 *   execute: (i) => Promise.resolve(String(i.a + i.b)),
 * })]);
 * const r = await runTool(reg, { name: "Add", input: '{"a":2,"b":3}' });
 * assert.ok(r.ok && r.text === "5");
 * ```
 */
export function runTool(
  registry: ToolRegistry,
  call: ToolCallRequest,
  options: RunOptions = {},
): Promise<ToolCallResult> {
  const opts = { ...options, session: options.session ?? new Session() };
  // aliases become the canonical name before any middleware or rule sees the call (THREATS.md P5)
  const canonical = registry.resolve(call.name);
  const named = canonical !== undefined && canonical !== call.name ? { ...call, name: canonical } : call;
  return compose(options.middleware ?? [], (c) => runCall(registry, c, opts))(named);
}

type Next = (call: ToolCallRequest) => Promise<ToolCallResult>;

/** The middleware around `core`, outermost first: with `[a, b]` a call goes a → b → core → b → a. */
function compose(middleware: readonly ToolMiddleware[], core: Next): Next {
  return middleware.reduceRight<Next>((next, mw) => (call) => mw(call, next), core);
}

/** A phase's refusal, as data: the call skips to `finish` with this code and message. */
class Failure {
  constructor(readonly code: ErrorCode, readonly message: string) {}
}

/** What the phases of one call share. `tool` and `input` are set as `resolve` and `parse` succeed. */
interface CallState {
  readonly id: string;
  readonly started: number;
  readonly session: Session;
  readonly options: RunOptions;
  readonly emit: (event: ToolEvent) => void;
  /** Texts the hooks add for the model, appended to the result. */
  readonly context: string[];
  tool?: Tool;
  input?: Record<string, unknown>;
  summary: string;
}

/** The state once the input parsed: the phases from `preHooks` on. */
type ParsedCall = CallState & { tool: Tool; input: Record<string, unknown> };

/** One call, without the middleware: the phases, then `finish`. */
async function runCall(
  registry: ToolRegistry,
  call: ToolCallRequest,
  options: RunOptions & { session: Session },
): Promise<ToolCallResult> {
  const run: CallState = {
    id: call.id ?? newCallId(),
    started: performance.now(),
    session: options.session,
    options,
    emit: options.onEvent ?? (() => {}),
    context: [],
    summary: "",
  };
  const outcome = await phases(registry, call, run);
  try {
    return await finish(run, call.name, outcome);
  } catch (err) {
    // a success whose result cannot be finished (its whole output cannot be saved…) reports why instead
    if (outcome instanceof Failure) throw err;
    const { code, message } = describeError(err);
    return await finish(run, call.name, new Failure(code, message));
  }
}

/** The phases in execution order; the first that refuses ends them. */
async function phases(
  registry: ToolRegistry,
  call: ToolCallRequest,
  run: CallState,
): Promise<ToolOutput | Failure> {
  const tool = resolve(registry, call.name, run);
  if (tool instanceof Failure) return tool;
  const input = parse(tool, call.input);
  if (input instanceof Failure) return input;
  const parsed = accept(run, tool, input);
  parsed.emit({ type: "tool_start", callId: parsed.id, tool: tool.name, input, summary: parsed.summary });
  const hook = await preHooks(parsed);
  if (hook instanceof Failure) return hook;
  const decision = await decide(registry, parsed, hook);
  if (decision.behavior === "deny") return new Failure("permission_denied", decision.reason);
  return await execute(parsed);
}

/** Phase 1: the tool for a name or alias, recorded in `run`; unknown, removed and disabled tools fail. */
function resolve(registry: ToolRegistry, name: string, run: CallState): Tool | Failure {
  const tool = registry.get(name);
  if (!tool) {
    const removed = registry.removedReason(name);
    if (removed !== undefined) {
      return new Failure("unavailable", `Tool "${name}" is no longer available: ${removed}`);
    }
    const close = registry.closest(name);
    const hint = close.length ? `: did you mean ${close.map((s) => `"${s}"`).join(", ")}?` : "";
    return new Failure("tool_not_found", `No tool named "${name}"${hint}`);
  }
  run.tool = tool;
  const disabled = registry.disabledReason(tool.name);
  if (disabled !== undefined) {
    return new Failure("permission_denied", `Tool "${tool.name}" is disabled: ${disabled}`);
  }
  return tool;
}

/** Phase 2: the input as the tool's schema accepts it, from an object or a JSON string. */
function parse(tool: Tool, raw: unknown): Record<string, unknown> | Failure {
  const invalid = (message: string) => new Failure("invalid_input", message);
  let value = raw;
  if (typeof raw === "string") {
    if (raw.length > MAX_INPUT_JSON_CHARS) {
      return invalid(
        `Input for ${tool.name} is ${raw.length} characters of JSON: the limit is ${MAX_INPUT_JSON_CHARS}`,
      );
    }
    const trimmed = raw.trim();
    try {
      value = trimmed === "" ? {} : JSON.parse(trimmed);
    } catch (err) {
      return invalid(
        `Input for ${tool.name} is not valid JSON: ${
          (err as Error).message
        }: send the arguments as one JSON object`,
      );
    }
  }
  if (value === undefined || value === null) value = {};
  if (typeof value !== "object" || Array.isArray(value)) {
    return invalid(
      `Input for ${tool.name} must be a JSON object, got ${Array.isArray(value) ? "array" : typeof value}`,
    );
  }
  const result = tool.input.safeParse(value, { reportInput: true });
  if (!result.success) return invalid(formatIssues(tool.name, result.error.issues));
  return result.data as Record<string, unknown>;
}

/** Records a valid input (the parsed one, or a hook's replacement) and its one-line summary. */
function accept(run: CallState, tool: Tool, input: Record<string, unknown>): ParsedCall {
  run.input = input;
  run.summary = safeSummary(tool, input);
  return run as ParsedCall;
}

/**
 * Phase 3: the PreToolUse hooks in order. Each may add context, replace the
 * input (parsed again) or decide; the first deny ends them. Their decision
 * goes to `decide` as data; a hook that throws refuses the call.
 */
async function preHooks(run: ParsedCall): Promise<HookVerdict | undefined | Failure> {
  const { tool, session } = run;
  let verdict: HookVerdict | undefined;
  for (const hook of run.options.hooks?.preToolUse ?? []) {
    let answer;
    try {
      answer = await hook({ tool: tool.name, input: run.input, callId: run.id, session });
    } catch (err) {
      const message = `A PreToolUse hook failed, so "${tool.name}" did not run: ${
        describeError(err).message
      }`;
      return new Failure("permission_denied", message);
    }
    if (!answer) continue;
    if (answer.additionalContext) run.context.push(answer.additionalContext);
    if (answer.updatedInput) {
      const again = parse(tool, answer.updatedInput);
      if (again instanceof Failure) {
        return new Failure(
          "invalid_input",
          `A hook replaced the input with an invalid one: ${again.message}`,
        );
      }
      accept(run, tool, again);
    }
    if (answer.decision === "deny") return { decision: "deny", reason: answer.reason };
    if (answer.decision) verdict = { decision: answer.decision, reason: answer.reason };
  }
  return verdict;
}

/** Phase 4: the permission decision, one call with everything it needs as data. */
function decide(
  registry: ToolRegistry,
  run: ParsedCall,
  hook: HookVerdict | undefined,
): Promise<CallDecision> {
  const { tool, input, session, options } = run;
  const approver = options.approver;
  return decideCall({
    tool,
    input,
    mode: session.mode,
    rules: options.rules,
    preset: options.preset,
    allowedTools: registry.allowed,
    cwd: session.cwd,
    roots: session.roots,
    hook,
    approve: approver &&
      (({ sideEffect, reason }) =>
        approver(
          { tool: tool.name, sideEffect, input, summary: run.summary, reason, session },
          options.signal ?? new AbortController().signal,
        )),
  });
}

/**
 * Phase 5: the tool, under a signal that aborts with the caller's signal or
 * at the time limit, whichever comes first. A call that stops that way keeps
 * the output it streamed in its message.
 */
async function execute(run: ParsedCall): Promise<ToolOutput | Failure> {
  const { tool, options, session } = run;
  const timeoutMs = options.timeoutMs ?? tool.timeoutMs ?? DEFAULT_TOOL_TIMEOUT_MS;
  const controller = new AbortController();
  const onAbort = () => controller.abort(new AbortedError("The call was aborted"));
  if (options.signal?.aborted) onAbort();
  options.signal?.addEventListener("abort", onAbort, { once: true });
  const timer = timeoutMs > 0
    ? setTimeout(
      () => controller.abort(new ToolTimeoutError(`"${tool.name}" timed out after ${timeoutMs} ms`)),
      timeoutMs,
    )
    : undefined;
  const streamed = new OutputTail(PARTIAL_OUTPUT_CHARS);
  const ctx: ToolContext = {
    cwd: session.cwd,
    roots: session.roots,
    signal: controller.signal,
    onOutput: (chunk) => {
      streamed.push(chunk);
      run.emit({ type: "tool_output", callId: run.id, tool: tool.name, chunk });
    },
    session,
    callId: run.id,
    fetch: options.fetch ?? globalThis.fetch,
    now: options.now ?? Date.now,
    env: options.env ?? {},
  };
  let abortListener: (() => void) | undefined;
  const aborted = new Promise<never>((_, reject) => {
    abortListener = () => reject(controller.signal.reason);
    controller.signal.addEventListener("abort", abortListener, { once: true });
  });
  aborted.catch(() => {});
  try {
    if (controller.signal.aborted) throw controller.signal.reason;
    const out = await Promise.race([tool.execute(run.input, ctx), aborted]);
    return typeof out === "string" ? { text: out } : out;
  } catch (err) {
    const { code, message } = describeError(err);
    const partial = streamed.text();
    const tail = (code === "timeout" || code === "aborted") && partial
      ? `\n\nOutput before it stopped:\n${partial}`
      : "";
    return new Failure(code, message + tail);
  } finally {
    clearTimeout(timer);
    options.signal?.removeEventListener("abort", onAbort);
    if (abortListener) controller.signal.removeEventListener("abort", abortListener);
  }
}

/**
 * Phase 6: the result. The PostToolUse (or PostToolUseFailure) hooks see it
 * and may add context; the text is truncated, the whole kept in the
 * session's output folder; `tool_end` is emitted when the tool was known.
 */
async function finish(run: CallState, asked: string, outcome: ToolOutput | Failure): Promise<ToolCallResult> {
  const { tool, input, session } = run;
  const name = tool?.name ?? asked;
  const ended = outcome instanceof Failure
    ? {
      ok: false,
      text: `Error: ${outcome.message}`,
      error: { code: outcome.code, message: outcome.message },
    }
    : { ok: true, text: outcome.text, data: outcome.data, images: outcome.images };
  const result: ToolCallResult = { ...ended, id: run.id, tool: name, elapsedMs: 0, input };
  if (tool && input) await postHooks(run, name, input, result);
  const cut = truncateOutput(result.text, tool?.maxOutputChars ?? DEFAULT_MAX_OUTPUT_CHARS, (full) => {
    const path = session.outputPath(`${run.id.replace(/[^A-Za-z0-9_-]/g, "_")}-${name}.txt`);
    Deno.writeTextFileSync(path, full);
    return path;
  });
  const text = run.context.length ? `${cut.text}\n\n${run.context.join("\n\n")}` : cut.text;
  const final = { ...result, text, truncated: cut.truncated, elapsedMs: performance.now() - run.started };
  if (tool) {
    run.emit({
      type: "tool_end",
      callId: run.id,
      tool: name,
      ok: final.ok,
      code: final.error?.code,
      elapsedMs: final.elapsedMs,
      result: final,
    });
  }
  return final;
}

/** The PostToolUse hooks of a success, or the PostToolUseFailure ones; a hook that throws is noted, not fatal. */
async function postHooks(
  run: CallState,
  tool: string,
  input: Record<string, unknown>,
  result: ToolCallResult,
): Promise<void> {
  const hooks = result.ok ? run.options.hooks?.postToolUse : run.options.hooks?.postToolUseFailure;
  for (const hook of hooks ?? []) {
    try {
      const answer = await hook({ tool, input, callId: run.id, session: run.session, result });
      if (answer?.additionalContext) run.context.push(answer.additionalContext);
    } catch (err) {
      run.context.push(`(a post-tool hook failed: ${describeError(err).message})`);
    }
  }
}

/** The last chunks of streamed output, about `limit` characters (a command may print gigabytes). */
class OutputTail {
  #chunks: string[] = [];
  #chars = 0;
  constructor(readonly limit: number) {}
  push(chunk: string): void {
    this.#chunks.push(chunk);
    this.#chars += chunk.length;
    while (this.#chars > this.limit && this.#chunks.length > 1) this.#chars -= this.#chunks.shift()!.length;
  }
  text(): string {
    return this.#chunks.join("");
  }
}

function safeSummary(tool: Tool, input: Record<string, unknown>): string {
  try {
    if (tool.summarize) return tool.summarize(input);
  } catch {
    // a summary is cosmetic
  }
  for (const key of ["command", "file_path", "notebook_path", "pattern", "url", "query", "description"]) {
    const v = input[key];
    if (typeof v === "string") return v.length > 120 ? `${v.slice(0, 117)}...` : v;
  }
  return "";
}

function newCallId(): string {
  return `call_${crypto.randomUUID().slice(0, 8)}`;
}

/**
 * Runs the calls of one model turn: consecutive read-only calls in parallel,
 * the others one at a time, results in call order. After an abort the calls
 * not yet started get error results, never silence.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { executeToolCalls, ToolRegistry } from "../../mod.ts";
 * const results = await executeToolCalls(new ToolRegistry(), [{ name: "Nope", input: {} }]);
 * assert.ok(results[0].text.startsWith("Error: "));
 * ```
 */
export async function executeToolCalls(
  registry: ToolRegistry,
  calls: readonly ToolCallRequest[],
  options: RunOptions = {},
): Promise<ToolCallResult[]> {
  const session = options.session ?? new Session();
  const opts = { ...options, session };
  const results: ToolCallResult[] = new Array(calls.length);
  let i = 0;
  while (i < calls.length) {
    const batch: number[] = [i];
    if (isParallelSafe(registry, calls[i])) {
      while (i + batch.length < calls.length && isParallelSafe(registry, calls[i + batch.length])) {
        batch.push(i + batch.length);
      }
    }
    if (opts.signal?.aborted) {
      for (let j = i; j < calls.length; j++) results[j] = interrupted(registry, calls[j]);
      break;
    }
    const done = await Promise.all(batch.map((j) => runTool(registry, calls[j], opts)));
    batch.forEach((j, k) => (results[j] = done[k]));
    i += batch.length;
  }
  return results;
}

function isParallelSafe(registry: ToolRegistry, call: ToolCallRequest): boolean {
  const tool = registry.get(call.name);
  return tool !== undefined && isReadOnly(tool.sideEffect);
}

function interrupted(registry: ToolRegistry, call: ToolCallRequest): ToolCallResult {
  const message = "Interrupted by the user before this call ran";
  return {
    id: call.id ?? newCallId(),
    tool: registry.resolve(call.name) ?? call.name,
    ok: false,
    text: `Error: ${message}`,
    error: { code: "aborted", message },
    elapsedMs: 0,
  };
}

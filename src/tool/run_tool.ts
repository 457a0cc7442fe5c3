/**
 * The one runner every call goes through, top to bottom:
 * resolve → parse → PreToolUse hooks → permission decision (rules, mode,
 * approver) → execute with signal and timeout → PostToolUse hooks →
 * truncate → result.
 *
 * @module
 */
import { AbortedError, describeError, type ErrorCode, ToolTimeoutError } from "../errors.ts";
import { decidePermission } from "../permissions/decide.ts";
import type { ConfirmationPreset } from "../permissions/modes.ts";
import type { PermissionRules } from "../permissions/rules.ts";
import {
  type ImageContent,
  isReadOnly,
  SIDE_EFFECTS,
  type SideEffect,
  type Tool,
  type ToolContext,
  type ToolOutput,
} from "./define_tool.ts";
import type { Approver, Hooks, ToolEvent, ToolMiddleware } from "./hooks.ts";
import { formatIssues } from "./json_schema.ts";
import type { ToolRegistry } from "./registry.ts";
import { Session } from "../session/session.ts";
import { DEFAULT_MAX_OUTPUT_CHARS, truncateOutput } from "./truncate.ts";

/** Time limit of one call when neither the call nor the tool sets one (ms). */
export const DEFAULT_TOOL_TIMEOUT_MS = 300_000;
/** Largest input accepted as a JSON string (characters). */
export const MAX_INPUT_JSON_CHARS = 5_000_000;

/** One call: a tool name (or alias) and its input (an object or a JSON string). */
export interface ToolCallRequest {
  /** Tool name or alias. */
  name: string;
  /** The arguments: an object, or the raw JSON string a model sent. */
  input: unknown;
  /** Call id (the model's `tool_call_id`). Default: a random id. */
  id?: string;
}

/** The result of one call: text for the model and a structured object. */
export interface ToolCallResult<S = unknown> {
  /** Call id. */
  id: string;
  /** Canonical tool name (the name asked for when unknown). */
  tool: string;
  /** Whether the call succeeded. */
  ok: boolean;
  /** Text for the model; starts with `Error: ` when the call failed. */
  text: string;
  /** The tool's structured result. */
  data?: S;
  /** Images for models that take them. */
  images?: ImageContent[];
  /** Set when the call failed. */
  error?: { code: ErrorCode; message: string };
  /** Set when the text was cut. */
  truncated?: { originalChars: number; fullOutputPath: string };
  /** Wall time of the call (ms). */
  elapsedMs: number;
  /** The input that ran (after hooks), when it parsed. */
  input?: Record<string, unknown>;
}

/** Options of {@link runTool} and {@link executeToolCalls}. */
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
 * import { z } from "zod";
 * import { defineTool, runTool, ToolRegistry } from "../../mod.ts";
 * const reg = new ToolRegistry([defineTool({
 *   name: "Add", description: "Adds two numbers", sideEffect: "None",
 *   input: z.strictObject({ a: z.number(), b: z.number() }),
 *   execute: (i) => Promise.resolve(String(i.a + i.b)),
 * })]);
 * const r = await runTool(reg, { name: "Add", input: '{"a":2,"b":3}' });
 * console.assert(r.ok && r.text === "5");
 * ```
 */
export function runTool(
  registry: ToolRegistry,
  call: ToolCallRequest,
  options: RunOptions = {},
): Promise<ToolCallResult> {
  const session = options.session ?? new Session();
  const opts = { ...options, session };
  const chain = [...(options.middleware ?? [])].reverse().reduce<
    (c: ToolCallRequest) => Promise<ToolCallResult>
  >(
    (next, mw) => (c) => mw(c, next),
    (c) => runCore(registry, c, opts),
  );
  return chain(call);
}

async function runCore(
  registry: ToolRegistry,
  call: ToolCallRequest,
  options: RunOptions & { session: Session },
): Promise<ToolCallResult> {
  const { session } = options;
  const started = performance.now();
  const id = call.id ?? `call_${crypto.randomUUID().slice(0, 8)}`;
  const tool = registry.get(call.name);
  const name = tool?.name ?? call.name;
  const emit = options.onEvent ?? (() => {});
  let input: Record<string, unknown> | undefined;
  let summary = "";
  const streamed: string[] = [];
  let streamedChars = 0;
  const context: string[] = [];

  const finish = async (res: Omit<ToolCallResult, "elapsedMs" | "id" | "tool">): Promise<ToolCallResult> => {
    let result: ToolCallResult = { ...res, id, tool: name, elapsedMs: 0, input };
    if (tool && input) {
      const list = result.ok ? options.hooks?.postToolUse : options.hooks?.postToolUseFailure;
      for (const hook of list ?? []) {
        try {
          const answer = await hook({ tool: name, input, callId: id, session, result });
          if (answer?.additionalContext) context.push(answer.additionalContext);
        } catch (err) {
          context.push(`(a post-tool hook failed: ${describeError(err).message})`);
        }
      }
    }
    const max = tool?.maxOutputChars ?? DEFAULT_MAX_OUTPUT_CHARS;
    const cut = truncateOutput(result.text, max, (full) => {
      const path = session.outputPath(`${id.replace(/[^A-Za-z0-9_-]/g, "_")}-${name}.txt`);
      Deno.writeTextFileSync(path, full);
      return path;
    });
    const text = context.length ? `${cut.text}\n\n${context.join("\n\n")}` : cut.text;
    result = { ...result, text, truncated: cut.truncated, elapsedMs: performance.now() - started };
    if (tool) {
      emit({
        type: "tool_end",
        callId: id,
        tool: name,
        ok: result.ok,
        code: result.error?.code,
        elapsedMs: result.elapsedMs,
        result,
      });
    }
    return result;
  };
  const fail = (code: ErrorCode, message: string, extra: Partial<ToolCallResult> = {}) =>
    finish({ ok: false, text: `Error: ${message}`, error: { code, message }, ...extra });

  if (!tool) {
    const removed = registry.removedReason(call.name);
    if (removed !== undefined) {
      return fail("unavailable", `Tool "${call.name}" is no longer available: ${removed}`);
    }
    const close = registry.closest(call.name);
    const hint = close.length ? `: did you mean ${close.map((s) => `"${s}"`).join(", ")}?` : "";
    return fail("tool_not_found", `No tool named "${call.name}"${hint}`);
  }
  const disabled = registry.disabledReason(name);
  if (disabled !== undefined) return fail("permission_denied", `Tool "${name}" is disabled: ${disabled}`);

  // parse
  const parsed = parseInput(tool, call.input);
  if ("error" in parsed) return fail("invalid_input", parsed.error);
  input = parsed.value;
  summary = safeSummary(tool, input);
  emit({ type: "tool_start", callId: id, tool: name, input, summary });

  // PreToolUse hooks
  let hookDecision: "allow" | "deny" | "ask" | undefined;
  for (const hook of options.hooks?.preToolUse ?? []) {
    let answer;
    try {
      answer = await hook({ tool: name, input, callId: id, session });
    } catch (err) {
      return fail(
        "permission_denied",
        `A PreToolUse hook failed, so "${name}" did not run: ${describeError(err).message}`,
      );
    }
    if (!answer) continue;
    if (answer.additionalContext) context.push(answer.additionalContext);
    if (answer.updatedInput) {
      const again = parseInput(tool, answer.updatedInput);
      if ("error" in again) {
        return fail("invalid_input", `A hook replaced the input with an invalid one: ${again.error}`);
      }
      input = again.value;
      summary = safeSummary(tool, input);
    }
    if (answer.decision === "deny") {
      return fail("permission_denied", `Denied by a hook${answer.reason ? `: ${answer.reason}` : ""}`);
    }
    if (answer.decision) hookDecision = answer.decision;
  }

  // permission decision
  const sideEffect = callSideEffect(tool, input);
  const decision = decidePermission({
    tool: name,
    sideEffect,
    input,
    mode: session.mode,
    rules: options.rules,
    preset: options.preset,
    allowedTools: registry.allowed,
    cwd: session.cwd,
  });
  let behavior = decision.behavior;
  if (behavior !== "deny" && hookDecision) behavior = hookDecision;
  if (behavior === "deny") return fail("permission_denied", decision.reason);
  if (behavior === "ask") {
    if (session.mode === "dontAsk") {
      return fail("permission_denied", `${decision.reason}, and dontAsk mode refuses it`);
    }
    if (!options.approver) {
      return fail(
        "permission_denied",
        `${decision.reason}, and no approver is set: allow it with a rule, the allowed set or another permission mode`,
      );
    }
    let answer;
    try {
      answer = await options.approver(
        { tool: name, sideEffect, input, summary, reason: decision.reason, session },
        options.signal ?? new AbortController().signal,
      );
    } catch (err) {
      return fail("permission_denied", `The approver failed: ${describeError(err).message}`);
    }
    const allowed = typeof answer === "boolean" ? answer : answer.behavior === "allow";
    if (!allowed) {
      const why = typeof answer === "object" && answer.reason ? `: ${answer.reason}` : "";
      return fail("permission_denied", `The user denied "${name}"${why}`);
    }
  }

  // execute under signal and timeout
  const timeoutMs = options.timeoutMs ?? tool.timeoutMs ?? DEFAULT_TOOL_TIMEOUT_MS;
  const controller = new AbortController();
  const onAbort = () => controller.abort(new AbortedError("The call was aborted"));
  if (options.signal?.aborted) onAbort();
  options.signal?.addEventListener("abort", onAbort, { once: true });
  const timer = timeoutMs > 0
    ? setTimeout(
      () => controller.abort(new ToolTimeoutError(`"${name}" timed out after ${timeoutMs} ms`)),
      timeoutMs,
    )
    : undefined;
  const ctx: ToolContext = {
    cwd: session.cwd,
    roots: session.roots,
    signal: controller.signal,
    onOutput: (chunk) => {
      streamed.push(chunk);
      streamedChars += chunk.length;
      // keep a bounded tail for the partial-output message: a command may print gigabytes
      while (streamedChars > 4 * DEFAULT_MAX_OUTPUT_CHARS && streamed.length > 1) {
        streamedChars -= streamed.shift()!.length;
      }
      emit({ type: "tool_output", callId: id, tool: name, chunk });
    },
    session,
    callId: id,
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
    const out = await Promise.race([tool.execute(input, ctx), aborted]);
    const output: ToolOutput = typeof out === "string" ? { text: out } : out;
    return await finish({ ok: true, text: output.text, data: output.data, images: output.images });
  } catch (err) {
    const { code, message } = describeError(err);
    const partial = streamed.join("");
    const tail = (code === "timeout" || code === "aborted") && partial
      ? `\n\nOutput before it stopped:\n${partial}`
      : "";
    return await fail(code, message + tail, {});
  } finally {
    clearTimeout(timer);
    options.signal?.removeEventListener("abort", onAbort);
    if (abortListener) controller.signal.removeEventListener("abort", abortListener);
  }
}

function parseInput(tool: Tool, raw: unknown): { value: Record<string, unknown> } | { error: string } {
  let value = raw;
  if (typeof raw === "string") {
    if (raw.length > MAX_INPUT_JSON_CHARS) {
      return {
        error:
          `Input for ${tool.name} is ${raw.length} characters of JSON: the limit is ${MAX_INPUT_JSON_CHARS}`,
      };
    }
    const trimmed = raw.trim();
    if (trimmed === "") value = {};
    else {
      try {
        value = JSON.parse(trimmed);
      } catch (err) {
        return {
          error: `Input for ${tool.name} is not valid JSON: ${
            (err as Error).message
          }: send the arguments as one JSON object`,
        };
      }
    }
  }
  if (value === undefined || value === null) value = {};
  if (typeof value !== "object" || Array.isArray(value)) {
    return {
      error: `Input for ${tool.name} must be a JSON object, got ${
        Array.isArray(value) ? "array" : typeof value
      }`,
    };
  }
  const result = tool.input.safeParse(value, { reportInput: true });
  if (!result.success) return { error: formatIssues(tool.name, result.error.issues) };
  return { value: result.data as Record<string, unknown> };
}

/** The class of this call: `tool.sideEffectOf(input)` when the tool has it and it answers a class, else the tool's. */
function callSideEffect(tool: Tool, input: Record<string, unknown>): SideEffect {
  try {
    const effect = tool.sideEffectOf?.(input);
    if (effect !== undefined && (SIDE_EFFECTS as readonly string[]).includes(effect)) return effect;
  } catch {
    // fall back to the tool's own class
  }
  return tool.sideEffect;
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

/**
 * Runs the calls of one model turn: consecutive read-only calls in parallel,
 * the others one at a time, results in call order. After an abort the calls
 * not yet started get error results, never silence.
 *
 * @example
 * ```ts
 * import { executeToolCalls, ToolRegistry } from "../../mod.ts";
 * const results = await executeToolCalls(new ToolRegistry(), [{ name: "Nope", input: {} }]);
 * console.assert(results[0].text.startsWith("Error: "));
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
    id: call.id ?? `call_${crypto.randomUUID().slice(0, 8)}`,
    tool: registry.resolve(call.name) ?? call.name,
    ok: false,
    text: `Error: ${message}`,
    error: { code: "aborted", message },
    elapsedMs: 0,
  };
}

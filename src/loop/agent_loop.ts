/**
 * The agent loop: ask the model, run the tool calls it makes through the
 * registry, send the results back as `tool` messages, repeat until a turn
 * has no tool calls, `maxTurns`, the token budget, or an abort.
 *
 * The history always stays valid for the next request: every assistant
 * `tool_call` gets its `tool` message, aborted or not.
 *
 * @module
 */
import type { ToolRegistry } from "../tool/registry.ts";
import { executeToolCalls, type RunOptions } from "../tool/run_tool.ts";
import { Session } from "../session/session.ts";
import { type ChatMessage, type ModelClient, requestTurn, type TurnResponse } from "./client.ts";
import { addUsage, type AgentEvent, emptyUsage, EventQueue, type StopReason, type Usage } from "./events.ts";
import { describeModelError, type RetryOptions, withRetry } from "./retry.ts";

/**
 * Turns a run may take unless told otherwise.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { DEFAULT_MAX_TURNS } from "./agent_loop.ts";
 * assert.equal(DEFAULT_MAX_TURNS, 50);
 * ```
 */
export const DEFAULT_MAX_TURNS = 50;

/**
 * Options of {@link runAgent}.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { type AgentOptions, createModelClient, createRuntime } from "../../mod.ts";
 * await using rt = createRuntime({ roots: [Deno.cwd()], mode: "plan" });
 * const options: AgentOptions = {
 *   client: createModelClient({ baseUrl: "http://127.0.0.1:11434/v1" }),
 *   model: "qwen3",
 *   registry: rt.registry,
 *   runOptions: rt.runOptions,
 *   prompt: "Summarise README.md",
 *   maxTurns: 10,
 * };
 * assert.equal(options.runOptions?.session, rt.session);
 * ```
 */
export interface AgentOptions {
  /** The endpoint. */
  client: ModelClient;
  /** The model, or a function read before every turn (so Config can change it mid-session). */
  model: string | (() => string);
  /** The tools the model may call. */
  registry: ToolRegistry;
  /** Options every tool call runs with (session, approver, hooks, rules…). */
  runOptions?: RunOptions;
  /** System prompt, added when the history has none. Default {@link defaultSystemPrompt}; `""` for none. */
  systemPrompt?: string;
  /** The conversation so far; the run appends to it in place. Default: a new one. */
  history?: ChatMessage[];
  /** A user message to append before the first turn. */
  prompt?: string;
  /** Most model turns this run may take. Default {@link DEFAULT_MAX_TURNS}. */
  maxTurns?: number;
  /** Token budget: no new turn starts once the run used this many tokens. Default: none. */
  maxTokens?: number;
  /** Stream answers (SSE). Default true. */
  stream?: boolean;
  /** Stops the run; the history stays valid. */
  signal?: AbortSignal;
  /** Retry tuning (the loop adds signal and events). */
  retry?: Omit<RetryOptions, "signal" | "onRetry" | "canRetry">;
  /** Yield the session's events (`todos`, `mode`, `config`…) as `session` events. Default true. */
  sessionEvents?: boolean;
}

/**
 * The final event of a run.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import type { AgentResult } from "../../mod.ts";
 * const line = (r: AgentResult): string =>
 *   `${r.stopReason} after ${r.turns} turns, ${r.usage.totalTokens} tokens`;
 * const usage = { promptTokens: 90, completionTokens: 10, totalTokens: 100, requests: 2, toolCalls: 1 };
 * const result: AgentResult = {
 *   type: "result",
 *   stopReason: "completed",
 *   text: "Done",
 *   turns: 2,
 *   usage,
 *   durationMs: 900,
 * };
 * assert.equal(line(result), "completed after 2 turns, 100 tokens");
 * ```
 */
export type AgentResult = Extract<AgentEvent, { type: "result" }>;

/**
 * A short system prompt of ours: where the agent works and how to behave.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { Session } from "../session/session.ts";
 * import { defaultSystemPrompt } from "./agent_loop.ts";
 * assert.ok(defaultSystemPrompt(new Session({ roots: ["/tmp"] })).includes("/tmp"));
 * ```
 */
export function defaultSystemPrompt(session: Session): string {
  return [
    "You are a coding agent working in a sandboxed workspace through the tools you are given.",
    `Working directory: ${session.cwd}`,
    `Workspace roots: ${session.roots.join(", ")}`,
    `Permission mode: ${session.mode}`,
    "Use absolute paths with file tools. Read a file before editing it. Prefer the dedicated tools over Bash for",
    'reading, searching and editing. When a tool result starts with "Error: ", read it and adjust.',
    "When the task is done, answer with a short summary and no tool calls.",
  ].join("\n");
}

/**
 * Runs the loop and streams its events; the last one is always `result`.
 * Breaking out of the iteration aborts the run.
 *
 * @example A tool call, then an answer
 * ```ts
 * import assert from "node:assert/strict";
 * import { z } from "zod";
 * import { createModelClient, defineTool, runAgent, ToolRegistry } from "../../mod.ts";
 * // a stand-in for an OpenAI-compatible endpoint: it asks for Add, then answers
 * const answers = [
 *   {
 *     role: "assistant",
 *     content: null,
 *     tool_calls: [{ id: "c1", type: "function", function: { name: "Add", arguments: '{"a":2,"b":3}' } }],
 *   },
 *   { role: "assistant", content: "2 + 3 = 5" },
 * ];
 * await using server = Deno.serve({ port: 0, onListen: () => {} }, () =>
 *   Response.json({
 *     id: "r",
 *     object: "chat.completion",
 *     created: 0,
 *     model: "m",
 *     choices: [{ index: 0, message: answers.shift(), finish_reason: "stop" }],
 *   }));
 * const add = defineTool({
 *   name: "Add",
 *   description: "Adds two numbers",
 *   sideEffect: "None",
 *   input: z.strictObject({ a: z.number(), b: z.number() }),
 *   execute: (input) => Promise.resolve(String(input.a + input.b)),
 * });
 * const client = createModelClient({ baseUrl: `http://127.0.0.1:${server.addr.port}/v1` });
 * const registry = new ToolRegistry([add]);
 * const seen: string[] = [];
 * for await (
 *   const event of runAgent({ client, model: "m", registry, prompt: "What is 2 + 3?", stream: false })
 * ) {
 *   seen.push(event.type);
 *   if (event.type === "tool_end") assert.equal(event.result.text, "5");
 *   if (event.type === "result") assert.equal(event.text, "2 + 3 = 5");
 * }
 * assert.equal(seen.at(-1), "result");
 * ```
 */
export function runAgent(options: AgentOptions): AsyncIterable<AgentEvent> {
  return { [Symbol.asyncIterator]: () => iterate(options)[Symbol.asyncIterator]() };
}

/**
 * Runs the loop to its end and returns the `result` event, passing every
 * event to `onEvent`.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { createModelClient, runAgentToEnd, ToolRegistry } from "../../mod.ts";
 * // a stand-in for an OpenAI-compatible endpoint: every answer is "Done"
 * await using server = Deno.serve({ port: 0, onListen: () => {} }, () =>
 *   Response.json({
 *     id: "r",
 *     object: "chat.completion",
 *     created: 0,
 *     model: "m",
 *     choices: [{ index: 0, message: { role: "assistant", content: "Done" }, finish_reason: "stop" }],
 *     usage: { prompt_tokens: 12, completion_tokens: 1, total_tokens: 13 },
 *   }));
 * const client = createModelClient({ baseUrl: `http://127.0.0.1:${server.addr.port}/v1` });
 * const registry = new ToolRegistry([]);
 * const result = await runAgentToEnd({ client, model: "m", registry, prompt: "Hi", stream: false });
 * assert.equal(result.stopReason, "completed");
 * assert.equal(result.text, "Done");
 * assert.equal(result.usage.totalTokens, 13);
 * ```
 */
export async function runAgentToEnd(
  options: AgentOptions,
  onEvent?: (event: AgentEvent) => void,
): Promise<AgentResult> {
  let result: AgentResult | undefined;
  for await (const event of runAgent(options)) {
    onEvent?.(event);
    if (event.type === "result") result = event;
  }
  return result!;
}

async function* iterate(options: AgentOptions): AsyncGenerator<AgentEvent> {
  const queue = new EventQueue<AgentEvent>();
  const controller = new AbortController();
  const onAbort = () => controller.abort(options.signal?.reason);
  if (options.signal?.aborted) onAbort();
  options.signal?.addEventListener("abort", onAbort, { once: true });
  const session = options.runOptions?.session ?? new Session();
  const unsubscribe = options.sessionEvents === false
    ? () => {}
    : session.on((event) => queue.push({ type: "session", event }));
  let finished = false;
  const done = drive(options, session, controller.signal, (e) => queue.push(e))
    .finally(() => {
      finished = true;
      queue.close();
    });
  try {
    for await (const event of queue) yield event;
  } finally {
    if (!finished) controller.abort(new Error("The event stream was closed"));
    await done;
    unsubscribe();
    options.signal?.removeEventListener("abort", onAbort);
  }
}

async function drive(
  options: AgentOptions,
  session: Session,
  signal: AbortSignal,
  emit: (e: AgentEvent) => void,
): Promise<void> {
  const started = performance.now();
  const history = options.history ?? [];
  const maxTurns = options.maxTurns ?? DEFAULT_MAX_TURNS;
  const total: Usage = emptyUsage();
  const modelOf = typeof options.model === "function" ? options.model : () => options.model as string;
  let turn = 0;
  let lastText = "";
  let emptyAnswers = 0;
  const finish = (stopReason: StopReason, error?: string) =>
    emit({
      type: "result",
      stopReason,
      text: lastText,
      turns: turn,
      usage: { ...total },
      durationMs: performance.now() - started,
      ...(error === undefined ? {} : { error }),
    });

  if (options.systemPrompt !== "" && !history.some((m) => m.role === "system")) {
    history.unshift({ role: "system", content: options.systemPrompt ?? defaultSystemPrompt(session) });
  }
  if (options.prompt !== undefined) history.push({ role: "user", content: options.prompt });

  while (true) {
    if (signal.aborted) return finish("aborted");
    if (turn >= maxTurns) return finish("max_turns");
    if (options.maxTokens !== undefined && total.totalTokens >= options.maxTokens) {
      return finish("token_budget");
    }
    turn++;
    await options.registry.load(); // the built-in tools a runtime registers load on first use
    const model = modelOf();
    emit({ type: "turn_start", turn, model });
    let partial = "";
    let response: TurnResponse;
    try {
      response = await withRetry(
        () => {
          partial = "";
          return requestTurn(options.client, {
            model,
            messages: history,
            tools: options.registry.definitions(),
            stream: options.stream,
            signal,
            onText: (delta) => {
              partial += delta;
              emit({ type: "text", delta });
            },
          });
        },
        {
          ...options.retry,
          signal,
          canRetry: () => partial === "",
          onRetry: (info) => emit({ type: "retry", ...info }),
        },
      );
    } catch (err) {
      if (partial) {
        history.push({ role: "assistant", content: partial });
        lastText = partial;
      }
      if (signal.aborted) return finish("aborted");
      return finish("error", describeModelError(err, { baseUrl: options.client.baseUrl, model }));
    }
    if (signal.aborted) {
      // a stream cut short by the abort: keep the text the user saw, drop half-made tool calls
      if (response.content) history.push({ role: "assistant", content: response.content });
      lastText = response.content;
      return finish("aborted");
    }
    addUsage(total, response.usage);
    emit({ type: "usage", turn, usage: response.usage, total: { ...total } });

    const calls = uniqueIds(response.toolCalls);
    if (calls.length === 0) {
      if (response.content === "" && emptyAnswers === 0) {
        // an empty answer is a model hiccup: ask once more with the same history
        emptyAnswers++;
        emit({ type: "turn_end", turn, toolCalls: 0 });
        continue;
      }
      history.push({ role: "assistant", content: response.content });
      lastText = response.content;
      emit({ type: "turn_end", turn, toolCalls: 0 });
      return finish("completed");
    }
    history.push({ role: "assistant", content: response.content || null, tool_calls: calls });
    lastText = response.content;
    for (const c of calls) {
      emit({ type: "tool_call", callId: c.id, tool: c.function.name, arguments: c.function.arguments });
    }
    const outer = options.runOptions?.onEvent;
    const ended = new Set<string>();
    const results = await executeToolCalls(
      options.registry,
      calls.map((c) => ({ id: c.id, name: c.function.name, input: c.function.arguments })),
      {
        ...options.runOptions,
        session,
        signal,
        onEvent: (e) => {
          if (e.type === "tool_end") ended.add(e.callId);
          outer?.(e);
          emit(e);
        },
      },
    );
    for (const r of results) {
      // calls refused before they started (unknown tool, bad JSON, interrupted) still get an end event
      if (!ended.has(r.id)) {
        emit({
          type: "tool_end",
          callId: r.id,
          tool: r.tool,
          ok: r.ok,
          code: r.error?.code,
          elapsedMs: r.elapsedMs,
          result: r,
        });
      }
    }
    total.toolCalls += calls.length;
    calls.forEach((c, i) => history.push({ role: "tool", tool_call_id: c.id, content: results[i].text }));
    emit({ type: "turn_end", turn, toolCalls: calls.length });
  }
}

function uniqueIds<T extends { id: string }>(calls: T[]): T[] {
  const seen = new Set<string>();
  return calls.map((c) => {
    if (!seen.has(c.id)) {
      seen.add(c.id);
      return c;
    }
    const id = `${c.id}_${crypto.randomUUID().slice(0, 6)}`;
    seen.add(id);
    return { ...c, id };
  });
}

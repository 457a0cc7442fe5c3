/**
 * The model client: one chat-completions request per turn over the npm
 * `openai` client, streaming (SSE) or not, with any OpenAI-compatible base
 * URL (OpenAI, LiteLLM, vLLM, Ollama, llama.cpp server).
 *
 * @module
 */
import type OpenAI from "openai";
import type { ToolDefinition } from "../tool/registry.ts";
import { emptyUsage, type Usage } from "./events.ts";
import { withRetry } from "./retry.ts";

/**
 * The `OpenAI` client class of the `openai` npm package. An alias marked
 * `@internal` because `deno doc --lint` reports npm types as private (their
 * declarations sit in a `file:` cache); the type is documented by `openai`.
 *
 * @internal
 */
type OpenAIClient = OpenAI;

/**
 * The default base URL when only an API key is configured.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { createModelClient, OPENAI_BASE_URL } from "./client.ts";
 * assert.equal(createModelClient({ apiKey: "sk-test" }).baseUrl, OPENAI_BASE_URL);
 * ```
 */
export const OPENAI_BASE_URL = "https://api.openai.com/v1";
/** Time limit of one model request (ms). */
export const DEFAULT_REQUEST_TIMEOUT_MS = 600_000;

/**
 * A tool call as it travels on the wire.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import type { WireToolCall } from "./client.ts";
 * const call: WireToolCall = {
 *   id: "call_1",
 *   type: "function",
 *   function: { name: "Read", arguments: '{"file_path":"/w/a.ts"}' },
 * };
 * assert.equal(JSON.parse(call.function.arguments).file_path, "/w/a.ts");
 * ```
 */
export interface WireToolCall {
  /** The call id the `tool` message must echo. */
  id: string;
  /** Always `function`. */
  type: "function";
  /** Name and raw JSON arguments. */
  function: { name: string; arguments: string };
}

/**
 * One chat message of the history.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import type { ChatMessage } from "../../mod.ts";
 * const history: ChatMessage[] = [
 *   { role: "user", content: "What is in README.md?" },
 *   {
 *     role: "assistant",
 *     content: null,
 *     tool_calls: [{
 *       id: "c1",
 *       type: "function",
 *       function: { name: "Read", arguments: '{"file_path":"/w/README.md"}' },
 *     }],
 *   },
 *   { role: "tool", tool_call_id: "c1", content: "# Paddock" },
 * ];
 * assert.equal(history.length, 3);
 * ```
 */
export type ChatMessage =
  | { role: "system"; content: string }
  | { role: "user"; content: string }
  | { role: "assistant"; content: string | null; tool_calls?: WireToolCall[] }
  | { role: "tool"; tool_call_id: string; content: string };

/**
 * Options of {@link createModelClient}.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { createModelClient, type ModelClientOptions } from "../../mod.ts";
 * const options: ModelClientOptions = { baseUrl: "http://127.0.0.1:11434/v1/", timeoutMs: 60_000 };
 * assert.equal(createModelClient(options).baseUrl, "http://127.0.0.1:11434/v1");
 * ```
 */
export interface ModelClientOptions {
  /** Base URL of the endpoint. Default {@link OPENAI_BASE_URL}. */
  baseUrl?: string;
  /** API key. Default: a placeholder, for local servers that need none. */
  apiKey?: string;
  /** Injected fetch. Default: the global one. */
  fetch?: typeof fetch;
  /** Time limit of one request (ms). Default {@link DEFAULT_REQUEST_TIMEOUT_MS}. */
  timeoutMs?: number;
}

/**
 * A configured endpoint.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { createModelClient, type ModelClient } from "../../mod.ts";
 * const client: ModelClient = createModelClient({ baseUrl: "http://127.0.0.1:11434/v1" });
 * assert.equal(client.baseUrl, "http://127.0.0.1:11434/v1");
 * ```
 */
export interface ModelClient {
  /** The base URL requests go to. */
  readonly baseUrl: string;
  /**
   * The underlying `openai` client (retries off: the loop retries), made on
   * first use: the `openai` package is imported then, not at start-up.
   */
  openai(): Promise<OpenAIClient>;
}

/**
 * Creates a client for an OpenAI-compatible endpoint.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { createModelClient } from "./client.ts";
 * const c = createModelClient({ baseUrl: "http://127.0.0.1:8080/v1" });
 * assert.equal(c.baseUrl, "http://127.0.0.1:8080/v1");
 * ```
 */
export function createModelClient(options: ModelClientOptions = {}): ModelClient {
  const baseUrl = (options.baseUrl ?? OPENAI_BASE_URL).replace(/\/+$/, "");
  let client: Promise<OpenAIClient> | undefined;
  const openai = () =>
    client ??= import("openai").then(({ default: OpenAI }) =>
      new OpenAI({
        baseURL: baseUrl,
        apiKey: options.apiKey || "not-set",
        maxRetries: 0,
        timeout: options.timeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS,
        fetch: options.fetch,
      })
    );
  return { baseUrl, openai };
}

/**
 * One turn's request.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { createModelClient, requestTurn, type TurnRequest } from "./client.ts";
 * // a stand-in for an OpenAI-compatible endpoint
 * await using server = Deno.serve({ port: 0, onListen: () => {} }, () =>
 *   Response.json({
 *     id: "r",
 *     object: "chat.completion",
 *     created: 0,
 *     model: "m",
 *     choices: [{ index: 0, message: { role: "assistant", content: "Hello" }, finish_reason: "stop" }],
 *   }));
 * const request: TurnRequest = {
 *   model: "m",
 *   messages: [{ role: "user", content: "Hi" }],
 *   tools: [],
 *   stream: false,
 * };
 * const client = createModelClient({ baseUrl: `http://127.0.0.1:${server.addr.port}/v1` });
 * assert.equal((await requestTurn(client, request)).content, "Hello");
 * ```
 */
export interface TurnRequest {
  /** Model name. */
  model: string;
  /** The history, system prompt first. */
  messages: readonly ChatMessage[];
  /** Tool definitions (omitted from the request when empty). */
  tools: readonly ToolDefinition[];
  /** Stream the answer (SSE). Default true. */
  stream?: boolean;
  /** Cancels the request. */
  signal?: AbortSignal;
  /** Receives text as it streams. */
  onText?: (delta: string) => void;
}

/**
 * What the model answered in one turn.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import type { TurnResponse } from "./client.ts";
 * const wantsTools = (r: TurnResponse): boolean => r.toolCalls.length > 0;
 * const usage = { promptTokens: 10, completionTokens: 2, totalTokens: 12, requests: 1, toolCalls: 0 };
 * assert.ok(!wantsTools({ content: "Done", toolCalls: [], usage, finishReason: "stop" }));
 * ```
 */
export interface TurnResponse {
  /** The text (may be empty). */
  content: string;
  /** The tool calls, ids filled in when the endpoint left them out. */
  toolCalls: WireToolCall[];
  /** Usage for this request (zeros when the endpoint reports none). */
  usage: Usage;
  /** `stop`, `tool_calls`, `length`… as reported. */
  finishReason: string | undefined;
}

/**
 * Sends one request and gathers the answer. With streaming, text deltas go
 * to `onText` as they arrive and tool-call fragments are joined by index.
 *
 * @example
 * ```ts ignore
 * const turn = await requestTurn(client, { model: "m", messages: [{ role: "user", content: "hi" }], tools: [] });
 * ```
 */
export async function requestTurn(client: ModelClient, req: TurnRequest): Promise<TurnResponse> {
  const stream = req.stream ?? true;
  const body: Record<string, unknown> = { model: req.model, messages: req.messages };
  if (req.tools.length) body.tools = req.tools;
  const usage = emptyUsage();
  usage.requests = 1;
  if (!stream) {
    // deno-lint-ignore no-explicit-any
    const res: any = await (await client.openai()).chat.completions.create(body as any, {
      signal: req.signal,
    });
    const choice = res.choices?.[0];
    const message = choice?.message ?? {};
    const content = typeof message.content === "string" ? message.content : "";
    if (content) req.onText?.(content);
    const toolCalls = (message.tool_calls ?? [])
      .filter((c: { type?: string }) => c.type === undefined || c.type === "function")
      .map((c: { id?: string; function?: { name?: string; arguments?: string } }) =>
        wireCall(c.id, c.function?.name, c.function?.arguments)
      );
    readUsage(usage, res.usage);
    return { content, toolCalls, usage, finishReason: choice?.finish_reason ?? undefined };
  }
  body.stream = true;
  body.stream_options = { include_usage: true };
  // deno-lint-ignore no-explicit-any
  const chunks: AsyncIterable<any> = await (await client.openai()).chat.completions.create(body as any, {
    signal: req.signal,
  }) as never;
  let content = "";
  let finishReason: string | undefined;
  const partial: Array<{ id?: string; name: string; arguments: string }> = [];
  for await (const chunk of chunks) {
    if (chunk.usage) readUsage(usage, chunk.usage);
    const choice = chunk.choices?.[0];
    if (!choice) continue;
    const delta = choice.delta ?? {};
    if (typeof delta.content === "string" && delta.content) {
      content += delta.content;
      req.onText?.(delta.content);
    }
    for (const tc of delta.tool_calls ?? []) {
      const index = typeof tc.index === "number" ? tc.index : partial.length;
      const slot = partial[index] ??= { name: "", arguments: "" };
      if (tc.id) slot.id = tc.id;
      if (tc.function?.name) slot.name += tc.function.name;
      if (tc.function?.arguments) slot.arguments += tc.function.arguments;
    }
    if (choice.finish_reason) finishReason = choice.finish_reason;
  }
  const toolCalls = partial.filter(Boolean).map((p) => wireCall(p.id, p.name, p.arguments));
  return { content, toolCalls, usage, finishReason };
}

function wireCall(id: string | undefined, name: string | undefined, args: string | undefined): WireToolCall {
  return {
    id: id || `call_${crypto.randomUUID().replaceAll("-", "").slice(0, 12)}`,
    type: "function",
    function: { name: name ?? "", arguments: args ?? "" },
  };
}

function readUsage(
  into: { promptTokens: number; completionTokens: number; totalTokens: number },
  u: unknown,
): void {
  if (!u || typeof u !== "object") return;
  const r = u as { prompt_tokens?: number; completion_tokens?: number; total_tokens?: number };
  into.promptTokens = r.prompt_tokens ?? 0;
  into.completionTokens = r.completion_tokens ?? 0;
  into.totalTokens = r.total_tokens ?? into.promptTokens + into.completionTokens;
}

/**
 * One question, one answer, no tools: for helpers such as WebFetch's page
 * summaries. Retried like a loop turn.
 *
 * @example
 * ```ts ignore
 * const text = await askModel(client, { model: "m", system: "Be brief", user: "Hi" });
 * ```
 */
export async function askModel(
  client: ModelClient,
  req: { model: string; system: string; user: string; signal?: AbortSignal },
): Promise<string> {
  const turn = await withRetry(() =>
    requestTurn(client, {
      model: req.model,
      messages: [{ role: "system", content: req.system }, { role: "user", content: req.user }],
      tools: [],
      stream: false,
      signal: req.signal,
    }), { signal: req.signal });
  return turn.content;
}

/**
 * A scripted chat-completions server for tests: real HTTP on 127.0.0.1,
 * port 0, answering `POST /v1/chat/completions` with streamed SSE or JSON
 * from a per-test script. Every request is recorded and checked: tool
 * definitions well-formed, every assistant tool_call answered by a `tool`
 * message with its id, no orphan `tool` message. Problems are collected in
 * `problems` (and the request gets a 400 naming them).
 */

/** A tool call the fake model makes. */
export interface ScriptedCall {
  /** Call id. Default `call_<n>`. */
  id?: string;
  /** Tool name. */
  name: string;
  /** Arguments: an object (sent as JSON) or a raw string (for malformed JSON). */
  arguments: string | Record<string, unknown>;
}

/** One scripted answer. */
export interface ScriptedAnswer {
  /** Assistant text. */
  text?: string;
  /** Tool calls. */
  toolCalls?: ScriptedCall[];
  /** Usage to report. Default 10 prompt + 5 completion tokens. */
  usage?: { prompt_tokens: number; completion_tokens: number };
  /** After sending `text` (streaming only), keep the response open until the client goes away. */
  hang?: boolean;
  /** Characters per text chunk when streaming. Default 4. */
  chunkSize?: number;
}

/** An HTTP error answer. */
export interface ScriptedError {
  /** Status code. */
  status: number;
  /** JSON body. Default an OpenAI-style error object. */
  body?: unknown;
  /** Response headers (`retry-after`…). */
  headers?: Record<string, string>;
}

/** A script step: an answer, an error, or a function of the request. */
export type ScriptStep =
  | ScriptedAnswer
  | ScriptedError
  | ((req: RecordedRequest) => ScriptedAnswer | ScriptedError | Promise<ScriptedAnswer | ScriptedError>);

/** What the client sent. */
export interface RecordedRequest {
  /** The parsed JSON body. */
  // deno-lint-ignore no-explicit-any
  body: any;
  /** The request headers. */
  headers: Headers;
  /** The path. */
  path: string;
  /** The messages. */
  // deno-lint-ignore no-explicit-any
  messages: any[];
  /** Names of the tools offered. */
  toolNames: string[];
  /** The `tool` messages by tool_call_id. */
  toolResults: Map<string, string>;
  /** Time the server spent on this request (ms), for benchmarks. */
  serverMs: number;
}

/** A running fake server. */
export interface FakeLlm extends AsyncDisposable {
  /** `http://127.0.0.1:<port>/v1`. */
  baseUrl: string;
  /** The port. */
  port: number;
  /** Every request so far. */
  requests: RecordedRequest[];
  /** Protocol problems seen (should stay empty). */
  problems: string[];
  /** Adds script steps. */
  enqueue(...steps: ScriptStep[]): void;
  /** Stops the server. */
  close(): Promise<void>;
}

/** Starts a fake server with a script; `await using llm = await startFakeLlm([...])`. */
export function startFakeLlm(script: ScriptStep[] = []): Promise<FakeLlm> {
  const queue = [...script];
  const requests: RecordedRequest[] = [];
  const problems: string[] = [];
  const hangs = new AbortController();
  let callCounter = 0;
  const { promise: listening, resolve: onListen } = Promise.withResolvers<number>();
  const server = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen: ({ port }) => onListen(port) },
    async (req) => {
      const t0 = performance.now();
      const url = new URL(req.url);
      if (req.method !== "POST" || !url.pathname.endsWith("/chat/completions")) {
        return Response.json({ error: { message: `Unknown route ${req.method} ${url.pathname}` } }, {
          status: 404,
        });
      }
      // deno-lint-ignore no-explicit-any
      let body: any;
      try {
        body = await req.json();
      } catch {
        problems.push("request body is not JSON");
        return Response.json({ error: { message: "bad JSON" } }, { status: 400 });
      }
      const record: RecordedRequest = {
        body,
        headers: req.headers,
        path: url.pathname,
        messages: body.messages ?? [],
        toolNames: (body.tools ?? []).map((t: { function?: { name?: string } }) => t.function?.name),
        toolResults: new Map(),
        serverMs: 0,
      };
      requests.push(record);
      const found = validate(body, record);
      if (found.length) {
        problems.push(...found.map((p) => `request ${requests.length}: ${p}`));
        return Response.json({ error: { message: found.join("; ") } }, { status: 400 });
      }
      const step = queue.shift();
      if (!step) {
        problems.push(`request ${requests.length}: no scripted reply left`);
        return Response.json({ error: { message: "no scripted reply left" } }, { status: 400 });
      }
      let answer: ScriptedAnswer | ScriptedError;
      try {
        answer = typeof step === "function" ? await step(record) : step;
      } catch (err) {
        // a failed check inside a script step: record it and answer 400 so the client does not retry
        problems.push(`request ${requests.length}: ${(err as Error).message}`);
        return Response.json({ error: { message: (err as Error).message } }, { status: 400 });
      }
      if ("status" in answer) {
        record.serverMs = performance.now() - t0;
        return Response.json(
          answer.body ?? { error: { message: `scripted status ${answer.status}`, type: "test" } },
          {
            status: answer.status,
            headers: answer.headers,
          },
        );
      }
      const calls = (answer.toolCalls ?? []).map((c) => ({
        id: c.id ?? `call_${++callCounter}`,
        type: "function",
        function: {
          name: c.name,
          arguments: typeof c.arguments === "string" ? c.arguments : JSON.stringify(c.arguments),
        },
      }));
      const u = answer.usage ?? { prompt_tokens: 10, completion_tokens: 5 };
      const usage = { ...u, total_tokens: u.prompt_tokens + u.completion_tokens };
      const finish = calls.length ? "tool_calls" : "stop";
      const base = { id: `chatcmpl-${requests.length}`, created: 0, model: body.model };
      if (!body.stream) {
        record.serverMs = performance.now() - t0;
        return Response.json({
          ...base,
          object: "chat.completion",
          choices: [{
            index: 0,
            finish_reason: finish,
            message: {
              role: "assistant",
              content: answer.text ?? null,
              ...(calls.length ? { tool_calls: calls } : {}),
            },
          }],
          usage,
        });
      }
      const enc = new TextEncoder();
      const chunk = (delta: unknown, finishReason: string | null = null) =>
        enc.encode(
          `data: ${
            JSON.stringify({
              ...base,
              object: "chat.completion.chunk",
              choices: [{ index: 0, delta, finish_reason: finishReason }],
            })
          }\n\n`,
        );
      const size = answer.chunkSize ?? 4;
      const parts: Uint8Array[] = [chunk({ role: "assistant", content: "" })];
      const text = answer.text ?? "";
      for (let i = 0; i < text.length; i += size) parts.push(chunk({ content: text.slice(i, i + size) }));
      calls.forEach((c, index) => {
        const args = c.function.arguments;
        const half = Math.floor(args.length / 2);
        parts.push(
          chunk({
            tool_calls: [{
              index,
              id: c.id,
              type: "function",
              function: { name: c.function.name, arguments: "" },
            }],
          }),
        );
        parts.push(chunk({ tool_calls: [{ index, function: { arguments: args.slice(0, half) } }] }));
        parts.push(chunk({ tool_calls: [{ index, function: { arguments: args.slice(half) } }] }));
      });
      if (answer.hang) {
        const stream = new ReadableStream<Uint8Array>({
          start(controller) {
            parts.forEach((p) => controller.enqueue(p));
            const stop = () => {
              try {
                controller.close();
              } catch {
                // already closed by the client going away
              }
            };
            hangs.signal.addEventListener("abort", stop, { once: true });
          },
        });
        record.serverMs = performance.now() - t0;
        return new Response(stream, { headers: { "content-type": "text/event-stream" } });
      }
      parts.push(chunk({}, finish));
      if (body.stream_options?.include_usage) {
        parts.push(
          enc.encode(
            `data: ${JSON.stringify({ ...base, object: "chat.completion.chunk", choices: [], usage })}\n\n`,
          ),
        );
      }
      parts.push(enc.encode("data: [DONE]\n\n"));
      const all = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
      let at = 0;
      for (const p of parts) (all.set(p, at), at += p.length);
      record.serverMs = performance.now() - t0;
      return new Response(all, { headers: { "content-type": "text/event-stream" } });
    },
  );
  return listening.then((port) => {
    const close = async () => {
      hangs.abort();
      await server.shutdown();
    };
    return {
      baseUrl: `http://127.0.0.1:${port}/v1`,
      port,
      requests,
      problems,
      enqueue: (...steps: ScriptStep[]) => void queue.push(...steps),
      close,
      [Symbol.asyncDispose]: close,
    };
  });
}

// deno-lint-ignore no-explicit-any
function validate(body: any, record: RecordedRequest): string[] {
  const problems: string[] = [];
  if (typeof body.model !== "string" || body.model === "") problems.push("model missing");
  if (!Array.isArray(body.messages) || body.messages.length === 0) problems.push("messages missing");
  for (const t of body.tools ?? []) {
    const name = t?.function?.name;
    if (t?.type !== "function" || typeof name !== "string" || !/^[a-zA-Z0-9_-]{1,64}$/.test(name)) {
      problems.push(`bad tool definition ${JSON.stringify(t).slice(0, 80)}`);
    } else if (t.function.parameters?.type !== "object") {
      problems.push(`tool ${name} parameters are not an object schema`);
    } else if (typeof t.function.description !== "string") problems.push(`tool ${name} has no description`);
  }
  const open = new Set<string>();
  for (const [i, m] of (body.messages ?? []).entries()) {
    if (m.role === "tool") {
      if (!open.delete(m.tool_call_id)) {
        problems.push(`message ${i}: tool message for unknown id "${m.tool_call_id}"`);
      }
      if (typeof m.content !== "string") problems.push(`message ${i}: tool content is not a string`);
      record.toolResults.set(m.tool_call_id, m.content);
      continue;
    }
    if (open.size) problems.push(`message ${i}: tool_calls ${[...open].join(", ")} have no tool message`);
    open.clear();
    if (m.role === "assistant") {
      for (const c of m.tool_calls ?? []) {
        if (open.has(c.id)) problems.push(`message ${i}: duplicate tool_call id "${c.id}"`);
        open.add(c.id);
      }
    }
  }
  if (open.size) problems.push(`tool_calls ${[...open].join(", ")} have no tool message at the end`);
  return problems;
}

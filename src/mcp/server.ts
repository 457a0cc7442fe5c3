/**
 * Server mode: a runtime's tools served over MCP, on stdio or on streamable
 * HTTP at `http://127.0.0.1:<port>/mcp`. Every call goes through
 * `runtime.run`, so the permission mode, rules and sandbox settings of the
 * process apply; annotations tell the client each tool's side-effect class.
 *
 * @module
 */
// @ts-types="@modelcontextprotocol/sdk/server/index"
import type * as SdkServerModule from "@modelcontextprotocol/sdk/server/index.js";
// @ts-types="@modelcontextprotocol/sdk/server/webStandardStreamableHttp"
import type * as SdkHttpModule from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js";
// @ts-types="@modelcontextprotocol/sdk/types"
import type * as SdkTypes from "@modelcontextprotocol/sdk/types.js";
import type { CallToolResult, Server, ToolAnnotations } from "./_sdk_types.ts";
import type { SideEffect } from "../tool/define_tool.ts";
import type { Approver } from "../tool/hooks.ts";
import type { ToolCallResult } from "../tool/run_tool.ts";
import type { Runtime } from "../runtime/runtime.ts";
import { clientCanElicit, elicitForm, INTERACTIVE_TOOLS, withMcpClient } from "./interaction.ts";
import { StreamServerTransport } from "./stdio.ts";

type ListToolsResult = SdkTypes.ListToolsResult;
type HttpTransport = SdkHttpModule.WebStandardStreamableHTTPServerTransport;

/** The SDK's server side, imported when the first server is made, not with this module. */
let sdk: {
  Server: typeof SdkServerModule.Server;
  HttpTransport: typeof SdkHttpModule.WebStandardStreamableHTTPServerTransport;
  types: typeof SdkTypes;
} | undefined;

async function loadSdk(): Promise<NonNullable<typeof sdk>> {
  if (!sdk) {
    const [server, http, types] = await Promise.all([
      import("@modelcontextprotocol/sdk/server/index.js") as Promise<typeof SdkServerModule>,
      import("@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js") as Promise<
        typeof SdkHttpModule
      >,
      import("@modelcontextprotocol/sdk/types.js") as Promise<typeof SdkTypes>,
    ]);
    sdk = { Server: server.Server, HttpTransport: http.WebStandardStreamableHTTPServerTransport, types };
  }
  return sdk;
}

/** The path the HTTP transport answers on. */
export const MCP_HTTP_PATH = "/mcp";

/** The annotations each side-effect class is served with. */
export const SIDE_EFFECT_ANNOTATIONS: Readonly<Record<SideEffect, ToolAnnotations>> = Object.freeze({
  None: { readOnlyHint: true, destructiveHint: false, openWorldHint: false },
  ReadOnly: { readOnlyHint: true, destructiveHint: false, openWorldHint: false },
  Mutating: { readOnlyHint: false, destructiveHint: true, openWorldHint: false },
  Execute: { readOnlyHint: false, destructiveHint: true, openWorldHint: true },
  Network: { readOnlyHint: false, destructiveHint: false, openWorldHint: true },
  Blocking: { readOnlyHint: true, destructiveHint: false, openWorldHint: false },
  Spawns: { readOnlyHint: false, destructiveHint: true, openWorldHint: true },
});

/**
 * Options of {@link createMcpServer}.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { createRuntime } from "../../mod.ts";
 * import { createMcpServer, type McpServerOptions } from "./server.ts";
 * await using rt = createRuntime({ tools: [] });
 * const options: McpServerOptions = { name: "my-tools", version: "1.2.0", elicitApproval: false };
 * assert.equal(typeof (await createMcpServer(rt, options)).connect, "function");
 * ```
 */
export interface McpServerOptions {
  /** Server name sent to clients. Default `paddock`. */
  name?: string;
  /** Server version. Default `0.1.0`. */
  version?: string;
  /**
   * When a call needs confirmation and the runtime has no approver, ask the
   * person through the client (MCP elicitation) if the client supports it.
   * Default true; without it such calls are refused with a message saying how
   * to allow them.
   */
  elicitApproval?: boolean;
  /**
   * Tools that need a person (their handlers ask through the client, see
   * `mcpInteraction`): listed only to clients that support elicitation, and
   * refused with the reason to others. Default `AskUserQuestion` and
   * `ExitPlanMode`; `[]` lists them to every client.
   */
  interactiveTools?: readonly string[];
}

/**
 * An MCP server (the SDK's low-level `Server`) over a runtime's registry.
 * Connect it to any transport; one server serves one client. The first
 * call imports the MCP SDK.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { createMcpServer } from "./server.ts";
 * import { createRuntime } from "../runtime/runtime.ts";
 * await using rt = createRuntime({ tools: [] });
 * const server = await createMcpServer(rt);
 * assert.equal(typeof server.connect, "function");
 * await server.close();
 * ```
 */
export async function createMcpServer(runtime: Runtime, options: McpServerOptions = {}): Promise<Server> {
  const { Server, types } = sdk ?? await loadSdk();
  const interactive = [...(options.interactiveTools ?? INTERACTIVE_TOOLS)];
  const server = new Server(
    { name: options.name ?? "paddock", version: options.version ?? "0.1.0" },
    {
      capabilities: { tools: { listChanged: true } },
      instructions: `Paddock's sandboxed tools, working in ${runtime.session.roots.join(", ")} ` +
        `(permission mode "${runtime.session.mode}"). File paths must be absolute.` +
        ` Tools that ask the person (${interactive.join(", ") || "none"}) are offered only to clients ` +
        `that support elicitation.`,
    },
  );
  const { registry } = runtime;
  await registry.load(); // the built-in tools a runtime registers load on first use
  const hidden = (name: string) =>
    !clientCanElicit(server) && interactive.includes(registry.get(name)?.name ?? name);
  server.setRequestHandler(types.ListToolsRequestSchema, (): ListToolsResult => ({
    tools: registry.enabled().filter((t) => !hidden(t.name)).map((t) => ({
      name: t.name,
      description: t.description,
      inputSchema: registry.schemaOf(t.name) as ListToolsResult["tools"][number]["inputSchema"],
      annotations: { ...SIDE_EFFECT_ANNOTATIONS[t.sideEffect] },
    })),
  }));
  server.setRequestHandler(types.CallToolRequestSchema, async (request, extra): Promise<CallToolResult> => {
    const token = request.params._meta?.progressToken;
    let progress = 0;
    if (hidden(request.params.name)) {
      return {
        content: [{
          type: "text",
          text:
            `Error: ${request.params.name} is not offered to this MCP client: it needs a person to answer, ` +
            "and the client does not support elicitation",
        }],
        isError: true,
      };
    }
    const result = await withMcpClient(
      server,
      () =>
        runtime.run(request.params.name, request.params.arguments ?? {}, {
          signal: extra.signal,
          ...(runtime.runOptions.approver || options.elicitApproval === false
            ? {}
            : { approver: elicitingApprover(server) }),
          onEvent: (event) => {
            runtime.runOptions.onEvent?.(event);
            if (token === undefined || event.type !== "tool_output") return;
            extra.sendNotification({
              method: "notifications/progress",
              params: { progressToken: token, progress: ++progress, message: event.chunk.slice(0, 2_000) },
            }).catch(() => {});
          },
        }),
    );
    return toCallToolResult(result);
  });
  let pending = false;
  const unsubscribe = registry.onChange(() => {
    if (pending) return;
    pending = true;
    queueMicrotask(() => {
      pending = false;
      if (server.transport) server.sendToolListChanged().catch(() => {});
    });
  });
  const previous = server.onclose;
  server.onclose = () => {
    unsubscribe();
    previous?.();
  };
  return server;
}

/**
 * Maps a runner result to an MCP tool result: text, images, and `isError` for failures.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { toCallToolResult } from "./server.ts";
 * const r = toCallToolResult({ id: "1", tool: "T", ok: false, text: "Error: no", elapsedMs: 1 });
 * assert.ok(r.isError === true && r.content[0].type === "text");
 * ```
 */
export function toCallToolResult(result: ToolCallResult): CallToolResult {
  return {
    content: [
      { type: "text", text: result.text },
      ...(result.images ?? []).map((i) => ({ type: "image" as const, data: i.data, mimeType: i.mediaType })),
    ],
    ...(result.ok ? {} : { isError: true }),
  };
}

/** An approver that asks the person at the client through MCP elicitation. */
function elicitingApprover(server: Server): Approver | undefined {
  return async (request, signal) => {
    if (!clientCanElicit(server)) {
      return {
        behavior: "deny",
        reason:
          "it needs confirmation and this MCP client cannot ask: start 'paddock mcp' with --allow rules, " +
          "--allowed-tools or another --permission-mode",
      };
    }
    const answer = await elicitForm(server, {
      message: `Allow ${request.tool}${request.summary ? ` (${request.summary})` : ""}? ${request.reason}`,
      requestedSchema: {
        type: "object",
        properties: { allow: { type: "boolean", title: "Allow this call", default: false } },
        required: ["allow"],
      },
    }, signal);
    const allowed = answer.action === "accept" && answer.content?.allow === true;
    return allowed
      ? { behavior: "allow" }
      : { behavior: "deny", reason: `the person answered "${answer.action}"` };
  };
}

/**
 * Options of {@link serveMcpStdio}.
 *
 * @example
 * ```ts
 * import { createRuntime } from "../../mod.ts";
 * import { type McpStdioOptions, serveMcpStdio } from "./server.ts";
 * await using rt = createRuntime({ tools: [] });
 * const written: string[] = [];
 * const options: McpStdioOptions = {
 *   input: ReadableStream.from([new TextEncoder().encode("")]),
 *   write: (text) => void written.push(text),
 * };
 * await serveMcpStdio(rt, options);
 * ```
 */
export interface McpStdioOptions extends McpServerOptions {
  /** Requests in (the process's stdin). */
  input: ReadableStream<Uint8Array>;
  /** Responses out (the process's stdout). */
  write: (text: string) => void | Promise<void>;
  /** Stops serving. */
  signal?: AbortSignal;
}

/**
 * Serves a runtime over stdio until the input ends or `signal` aborts.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { serveMcpStdio } from "./server.ts";
 * import { createRuntime } from "../runtime/runtime.ts";
 * await using rt = createRuntime({ tools: [] });
 * const out: string[] = [];
 * const input = ReadableStream.from([
 *   new TextEncoder().encode('{"jsonrpc":"2.0","id":1,"method":"ping"}\n'),
 * ]);
 * await serveMcpStdio(rt, { input, write: (t) => void out.push(t) });
 * assert.ok(out[0].includes('"id":1'));
 * ```
 */
export async function serveMcpStdio(runtime: Runtime, options: McpStdioOptions): Promise<void> {
  const server = await createMcpServer(runtime, options);
  const transport = new StreamServerTransport(options.input, options.write);
  const stop = () => transport.close();
  options.signal?.addEventListener("abort", stop, { once: true });
  try {
    await server.connect(transport);
    await transport.finished;
  } finally {
    options.signal?.removeEventListener("abort", stop);
    await server.close();
  }
}

/**
 * Options of {@link serveMcpHttp}.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { createRuntime } from "../../mod.ts";
 * import { type McpHttpOptions, serveMcpHttp } from "./server.ts";
 * await using rt = createRuntime({ tools: [] });
 * const options: McpHttpOptions = { port: 0, hostname: "127.0.0.1", name: "my-tools" };
 * await using http = serveMcpHttp(rt, options);
 * assert.ok(http.url.startsWith("http://127.0.0.1:"));
 * ```
 */
export interface McpHttpOptions extends McpServerOptions {
  /** Port; 0 picks a free one. Default 0. */
  port?: number;
  /** Interface. Default `127.0.0.1` (only this machine). */
  hostname?: string;
  /** Stops serving. */
  signal?: AbortSignal;
}

/**
 * A running HTTP server.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { createRuntime } from "../../mod.ts";
 * import { type McpHttpServer, serveMcpHttp } from "./server.ts";
 * await using rt = createRuntime({ tools: [] });
 * const http: McpHttpServer = serveMcpHttp(rt, { port: 0 });
 * assert.ok(http.port > 0);
 * await http.close();
 * await http.finished;
 * ```
 */
export interface McpHttpServer extends AsyncDisposable {
  /** The endpoint, `http://127.0.0.1:<port>/mcp`. */
  url: string;
  /** The port it listens on. */
  port: number;
  /** Resolves when the server has stopped. */
  finished: Promise<void>;
  /** Closes every client session and stops listening. */
  close(): Promise<void>;
}

/**
 * Serves a runtime over streamable HTTP: one MCP session per client (the
 * `Mcp-Session-Id` header), JSON-RPC over POST, notifications over SSE.
 * Host headers other than this server's own are refused (DNS rebinding).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { serveMcpHttp } from "./server.ts";
 * import { createRuntime } from "../runtime/runtime.ts";
 * await using rt = createRuntime({ tools: [] });
 * await using http = serveMcpHttp(rt, { port: 0 });
 * assert.ok(http.url.endsWith("/mcp"));
 * ```
 */
export function serveMcpHttp(runtime: Runtime, options: McpHttpOptions = {}): McpHttpServer {
  const hostname = options.hostname ?? "127.0.0.1";
  const sessions = new Map<string, { server: Server; transport: HttpTransport }>();
  const stopped = new AbortController();
  const onAbort = () => stopped.abort();
  options.signal?.addEventListener("abort", onAbort, { once: true });
  let allowedHosts: string[] = [];
  const jsonError = (status: number, message: string) =>
    Response.json({ jsonrpc: "2.0", error: { code: -32000, message }, id: null }, { status });
  const httpServer = Deno.serve({
    hostname,
    port: options.port ?? 0,
    signal: stopped.signal,
    onListen: () => {},
  }, async (req) => {
    const url = new URL(req.url);
    if (url.pathname !== MCP_HTTP_PATH) {
      return jsonError(404, `Not found: the MCP endpoint is ${MCP_HTTP_PATH}`);
    }
    const id = req.headers.get("mcp-session-id");
    if (id) {
      const session = sessions.get(id);
      if (!session) return jsonError(404, `Unknown MCP session "${id}": start a new one with initialize`);
      return await session.transport.handleRequest(req);
    }
    if (req.method !== "POST") return jsonError(400, "No Mcp-Session-Id header: send initialize first");
    const server = await createMcpServer(runtime, options);
    const transport: HttpTransport = new sdk!.HttpTransport({
      sessionIdGenerator: () => crypto.randomUUID(),
      onsessioninitialized: (sid) => void sessions.set(sid, { server, transport }),
      onsessionclosed: (sid) => void sessions.delete(sid),
      enableDnsRebindingProtection: true,
      allowedHosts,
    });
    transport.onclose = () => {
      if (transport.sessionId) sessions.delete(transport.sessionId);
    };
    await server.connect(transport);
    const response = await transport.handleRequest(req);
    if (!transport.sessionId) await server.close(); // not an initialize request: nothing to keep
    return response;
  });
  const port = httpServer.addr.port;
  allowedHosts.push(`${hostname}:${port}`, `localhost:${port}`, `127.0.0.1:${port}`, `[::1]:${port}`);
  allowedHosts = [...new Set(allowedHosts)];
  const close = async () => {
    options.signal?.removeEventListener("abort", onAbort);
    await Promise.all([...sessions.values()].map(({ server }) => server.close().catch(() => {})));
    sessions.clear();
    stopped.abort();
    await httpServer.finished;
  };
  const host = hostname.includes(":") ? `[${hostname}]` : hostname;
  return {
    url: `http://${host}:${port}${MCP_HTTP_PATH}`,
    port,
    finished: httpServer.finished,
    close,
    [Symbol.asyncDispose]: close,
  };
}

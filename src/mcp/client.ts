/**
 * One MCP server connection: start (stdio child or streamable HTTP) under a
 * time limit, register the server's tools, follow `tools/list_changed`,
 * unregister the tools when the server goes away, and reconnect with backoff.
 *
 * @module
 */
import { basename } from "node:path";
import { pathToFileURL } from "node:url";
// @ts-types="@modelcontextprotocol/sdk/client/index"
import type * as SdkClient from "@modelcontextprotocol/sdk/client/index.js";
// @ts-types="@modelcontextprotocol/sdk/client/streamableHttp"
import type * as SdkHttp from "@modelcontextprotocol/sdk/client/streamableHttp.js";
// @ts-types="@modelcontextprotocol/sdk/shared/transport"
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
// @ts-types="@modelcontextprotocol/sdk/types"
import type * as SdkTypes from "@modelcontextprotocol/sdk/types.js";
import type {
  CallToolResult,
  McpTool,
  ReadResourceResult,
  Resource,
  ResourceTemplate,
} from "./_sdk_types.ts";
import { InvalidInputError, PaddockError, ToolTimeoutError, UnavailableError } from "../errors.ts";
import type { ToolRegistry } from "../tool/registry.ts";
import { adaptMcpTool, type McpToolCaller, mcpToolName } from "./adapter.ts";
import type { McpServerConfig } from "./config.ts";
import { ChildProcessTransport } from "./stdio.ts";
import { processEnv, sandboxEnv } from "../sandbox/env.ts";

type Client = SdkClient.Client;

/** The SDK's client and protocol types, imported with the first connection, not with this module. */
let sdk: { Client: typeof SdkClient.Client; types: typeof SdkTypes } | undefined;

async function loadSdk(): Promise<NonNullable<typeof sdk>> {
  if (!sdk) {
    const [client, types] = await Promise.all([
      import("@modelcontextprotocol/sdk/client/index.js") as Promise<typeof SdkClient>,
      import("@modelcontextprotocol/sdk/types.js") as Promise<typeof SdkTypes>,
    ]);
    sdk = { Client: client.Client, types };
  }
  return sdk;
}

/** The code of an MCP protocol error (the SDK's `McpError`); undefined for any other error. */
function mcpErrorCode(err: unknown): number | undefined {
  return sdk && err instanceof sdk.types.McpError ? err.code : undefined;
}

/**
 * Time a server gets to start and answer `initialize` (ms).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { DEFAULT_MCP_START_TIMEOUT_MS } from "./client.ts";
 * assert.equal(DEFAULT_MCP_START_TIMEOUT_MS, 30_000);
 * ```
 */
export const DEFAULT_MCP_START_TIMEOUT_MS = 30_000;
/**
 * Time limit of one tool call or resource read (ms).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { DEFAULT_MCP_CALL_TIMEOUT_MS } from "./client.ts";
 * assert.equal(DEFAULT_MCP_CALL_TIMEOUT_MS, 300_000);
 * ```
 */
export const DEFAULT_MCP_CALL_TIMEOUT_MS = 300_000;
/** Reconnect attempts after a server goes away, before giving up. */
export const DEFAULT_RECONNECT_ATTEMPTS = 5;
/** First reconnect delay (ms); it doubles each attempt. */
export const DEFAULT_RECONNECT_DELAY_MS = 1_000;
/** Longest reconnect delay (ms). */
export const MAX_RECONNECT_DELAY_MS = 30_000;
/** How long a failed start waits for a dying server's exit status and stderr (ms). */
const EXIT_WAIT_MS = 1_000;
/** Most tools, resources or templates read from one server (pages are followed up to this). */
export const MAX_LISTED_ITEMS = 2_000;
/**
 * Environment variables a stdio server inherits besides the allowlist every
 * child gets (`sandboxEnv` in `src/sandbox/env.ts`: PATH, HOME, LANG, LC_*,
 * TERM, TZ, USER, LOGNAME, SHELL, TMPDIR): the proxy, certificate and cache
 * settings that servers started through `npx` or `deno run npm:` need to reach
 * the registry. The config's `env` adds more; Paddock's own model and search
 * keys are never inherited.
 */
export const INHERITED_ENV_VARS: readonly string[] = [
  "HOME",
  "LOGNAME",
  "PATH",
  "SHELL",
  "TERM",
  "USER",
  "TMPDIR",
  "LANG",
  "LC_ALL",
  "HTTP_PROXY",
  "HTTPS_PROXY",
  "NO_PROXY",
  "http_proxy",
  "https_proxy",
  "no_proxy",
  "SSL_CERT_FILE",
  "SSL_CERT_DIR",
  "NODE_EXTRA_CA_CERTS",
  "DENO_CERT",
  "DENO_TLS_CA_STORE",
  "DENO_DIR",
  "NPM_CONFIG_REGISTRY",
  "XDG_CACHE_HOME",
  "XDG_CONFIG_HOME",
];

/**
 * Where a connection is.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import type { McpServerState } from "./client.ts";
 * const usable = (state: McpServerState): boolean => state === "connected";
 * assert.ok(!usable("reconnecting" as McpServerState));
 * ```
 */
export type McpServerState = "connecting" | "connected" | "disconnected" | "failed" | "closed";

/**
 * Something that happened to a server, for logs and UIs.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { builtinTools, createRuntime, ToolRegistry } from "../../mod.ts";
 * import type { McpEvent } from "./client.ts";
 * import { McpManager } from "./manager.ts";
 * import { serveMcpHttp } from "./server.ts";
 * await using served = createRuntime({ tools: builtinTools().filter((t) => t.name === "TodoWrite") });
 * await using http = serveMcpHttp(served, { port: 0 });
 * const events: McpEvent[] = [];
 * const config = { servers: { self: { type: "http" as const, url: http.url, headers: {} } }, warnings: [] };
 * await using manager = new McpManager(config, new ToolRegistry(), { onEvent: (e) => events.push(e) });
 * await manager.start();
 * assert.deepEqual(events.map((e) => `${e.type} ${e.server}`), ["connected self"]);
 * ```
 */
export interface McpEvent {
  /** What happened. */
  type: "connected" | "disconnected" | "reconnecting" | "failed" | "tools_changed" | "stderr" | "error";
  /** The server's name. */
  server: string;
  /** Detail: the error, the stderr line, the new tool names… */
  message?: string;
  /** Registry names of the server's tools, on `connected` and `tools_changed`. */
  tools?: string[];
}

/**
 * Reconnect policy.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { ToolRegistry } from "../../mod.ts";
 * import { McpConnection, type ReconnectOptions } from "./client.ts";
 * const reconnect: ReconnectOptions = { maxAttempts: 3, initialDelayMs: 500, maxDelayMs: 5_000 };
 * const config = { type: "http" as const, url: "http://127.0.0.1:1/mcp", headers: {} };
 * const connection = new McpConnection("docs", config, { registry: new ToolRegistry(), reconnect });
 * assert.equal(connection.state, "connecting");
 * await connection.close();
 * ```
 */
export interface ReconnectOptions {
  /** Attempts before the server is marked failed. Default {@link DEFAULT_RECONNECT_ATTEMPTS}; 0 disables reconnecting. */
  maxAttempts?: number;
  /** First delay (ms), doubled each attempt. Default {@link DEFAULT_RECONNECT_DELAY_MS}. */
  initialDelayMs?: number;
  /** Longest delay (ms). Default {@link MAX_RECONNECT_DELAY_MS}. */
  maxDelayMs?: number;
}

/**
 * Options of {@link McpConnection}.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { builtinTools, createRuntime, ToolRegistry } from "../../mod.ts";
 * import { McpConnection, type McpConnectionOptions } from "./client.ts";
 * import { serveMcpHttp } from "./server.ts";
 * await using served = createRuntime({ tools: builtinTools().filter((t) => t.name === "TodoWrite") });
 * await using http = serveMcpHttp(served, { port: 0 });
 * const options: McpConnectionOptions = {
 *   registry: new ToolRegistry(),
 *   startTimeoutMs: 5_000,
 *   callTimeoutMs: 60_000,
 * };
 * const connection = new McpConnection("self", { type: "http", url: http.url, headers: {} }, options);
 * await connection.start();
 * assert.deepEqual(options.registry.names(), ["mcp__self__TodoWrite"]);
 * await connection.close();
 * ```
 */
export interface McpConnectionOptions {
  /** Where the server's tools are registered. */
  registry: ToolRegistry;
  /** Workspace roots, offered to the server as MCP roots. Default: none offered. */
  roots?: readonly string[];
  /** Working directory of stdio servers without their own `cwd`. Default: the first root. */
  cwd?: string;
  /**
   * The environment stdio servers are started from (the runtime's `env`). Only its allowlisted part
   * reaches a server (`sandboxEnv` with {@link INHERITED_ENV_VARS} and `passEnv`: never Paddock's
   * model or search keys); the server config's own `env` is added on top.
   * @default {this process's environment}
   */
  env?: Readonly<Record<string, string>>;
  /**
   * More variable names stdio servers inherit (the user's `--pass-env`); Paddock's own keys are held
   * back even when named here.
   * @default {[]}
   */
  passEnv?: readonly string[];
  /** Start time limit (ms). Default {@link DEFAULT_MCP_START_TIMEOUT_MS}. */
  startTimeoutMs?: number;
  /** Per-call time limit (ms). Default {@link DEFAULT_MCP_CALL_TIMEOUT_MS}. */
  callTimeoutMs?: number;
  /** Reconnect policy. */
  reconnect?: ReconnectOptions;
  /**
   * Let the server's tool annotations (`readOnlyHint`, `destructiveHint`) set its tools' side-effect
   * class. Annotations are the server's claims: without this every tool is `Network`, which asks.
   * Set it only for servers the user configured or trusted.
   * @default {false}
   */
  trustAnnotations?: boolean;
  /** Fetch for HTTP servers. Default: the global one. */
  fetch?: typeof fetch;
  /** Events. */
  onEvent?: (event: McpEvent) => void;
}

/**
 * A resource with the server it came from.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import type { McpResourceEntry } from "./client.ts";
 * const entry: McpResourceEntry = {
 *   server: "docs",
 *   uri: "docs://readme",
 *   name: "README",
 *   mimeType: "text/markdown",
 * };
 * assert.equal(`${entry.server}: ${entry.uri}`, "docs: docs://readme");
 * ```
 */
export interface McpResourceEntry extends Resource {
  /** The server's name. */
  server: string;
}

/**
 * A resource template with the server it came from.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import type { McpResourceTemplateEntry } from "./client.ts";
 * const template: McpResourceTemplateEntry = {
 *   server: "docs",
 *   uriTemplate: "docs://pages/{slug}",
 *   name: "Page",
 * };
 * assert.equal(template.uriTemplate.replace("{slug}", "install"), "docs://pages/install");
 * ```
 */
export interface McpResourceTemplateEntry extends ResourceTemplate {
  /** The server's name. */
  server: string;
}

/**
 * A connection to one configured server.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { McpConnection } from "./client.ts";
 * import { ToolRegistry } from "../tool/registry.ts";
 * const c = new McpConnection("none", { type: "stdio", command: "/nonexistent", args: [], env: {} }, {
 *   registry: new ToolRegistry(),
 *   reconnect: { maxAttempts: 0 },
 * });
 * await c.start().catch((e) => assert.ok(/Cannot start MCP server "none"/.test(e.message)));
 * await c.close();
 * ```
 */
export class McpConnection implements McpToolCaller {
  /** The server's name as configured. */
  readonly server: string;
  /** Its settings. */
  readonly config: McpServerConfig;
  /** Per-call time limit (ms). */
  readonly callTimeoutMs: number;
  /** The stdio server's command, for the Deno flag computation. */
  readonly programs: readonly string[];
  /** Whether its tools' annotations may set their side-effect class. */
  readonly trustAnnotations: boolean;
  #options: McpConnectionOptions;
  #state: McpServerState = "connecting";
  #lastError?: string;
  #client?: Client;
  #transport?: Transport;
  #generation = 0;
  #tools = new Map<string, string>();
  #allowed = new Set<string>();
  #attempts = 0;
  #timer?: ReturnType<typeof setTimeout>;
  #refreshing: Promise<void> = Promise.resolve();
  #connecting?: Promise<void>;

  /** Creates the connection; nothing runs until {@link start}. */
  constructor(server: string, config: McpServerConfig, options: McpConnectionOptions) {
    this.server = server;
    this.config = config;
    this.#options = options;
    this.callTimeoutMs = options.callTimeoutMs ?? DEFAULT_MCP_CALL_TIMEOUT_MS;
    this.programs = config.type === "stdio" ? [config.command] : [];
    this.trustAnnotations = options.trustAnnotations ?? false;
  }

  /** Where the connection is. */
  get state(): McpServerState {
    return this.#state;
  }

  /** Why the server last failed or went away. */
  get lastError(): string | undefined {
    return this.#lastError;
  }

  /** Registry names of the tools registered for this server now. */
  get toolNames(): string[] {
    return [...this.#tools.keys()];
  }

  /** The pid of a stdio server's process while it runs. */
  get pid(): number | undefined {
    return this.#transport instanceof ChildProcessTransport ? this.#transport.pid : undefined;
  }

  /** The server's `instructions`, once connected. */
  get instructions(): string | undefined {
    return this.#client?.getInstructions();
  }

  /**
   * Connects and registers the tools. On failure the error is thrown and a
   * reconnect is scheduled (unless reconnecting is off).
   */
  async start(signal?: AbortSignal): Promise<void> {
    try {
      await this.#connect(signal);
    } catch (err) {
      this.#lastError = (err as Error).message;
      if (!signal?.aborted) this.#scheduleReconnect();
      throw err;
    }
  }

  /**
   * Drops the current connection (if any) and connects again now, with a
   * fresh reconnect budget: for a server marked failed, or after fixing its
   * configuration's environment.
   */
  async reconnect(signal?: AbortSignal): Promise<void> {
    if (this.#state === "closed") throw new UnavailableError(`MCP server "${this.server}" was closed`);
    clearTimeout(this.#timer);
    this.#timer = undefined;
    await this.#connecting?.catch(() => {});
    this.#generation++;
    this.#unregisterTools(`MCP server "${this.server}" is reconnecting`);
    const client = this.#client;
    this.#client = undefined;
    this.#transport = undefined;
    await client?.close().catch(() => {});
    this.#attempts = 0;
    await this.start(signal);
  }

  #connect(signal?: AbortSignal): Promise<void> {
    this.#connecting ??= this.#doConnect(signal).finally(() => (this.#connecting = undefined));
    return this.#connecting;
  }

  async #doConnect(signal?: AbortSignal): Promise<void> {
    const { Client, types } = sdk ?? await loadSdk();
    const transport = await this.#makeTransport();
    if (this.#state === "closed") {
      throw new UnavailableError(`MCP server "${this.server}" was closed while it started`);
    }
    const gen = ++this.#generation;
    this.#state = "connecting";
    const timeoutMs = this.#options.startTimeoutMs ?? DEFAULT_MCP_START_TIMEOUT_MS;
    const client = new Client(
      { name: "paddock", version: "0.1.0" },
      { capabilities: this.#options.roots?.length ? { roots: { listChanged: false } } : {} },
    );
    if (this.#options.roots?.length) {
      client.setRequestHandler(types.ListRootsRequestSchema, () => ({
        roots: (this.#options.roots ?? []).map((r) => ({
          uri: pathToFileURL(r).href,
          name: basename(r) || r,
        })),
      }));
    }
    client.onclose = () => this.#lost(gen, this.#exitDetail(transport) ?? "the connection closed");
    client.onerror = (err) => {
      if (gen !== this.#generation || this.#state === "closed") return;
      this.#emit({ type: "error", message: err.message });
      // the SDK gives up re-opening an HTTP server's event stream: the server is gone
      if (this.#state === "connected" && /Maximum reconnection attempts/.test(err.message)) {
        this.#lost(gen, `the HTTP server stopped answering: ${err.message}`);
      }
    };
    const timeout = AbortSignal.timeout(timeoutMs);
    const combined = signal ? AbortSignal.any([signal, timeout]) : timeout;
    try {
      await client.connect(transport, { signal: combined, timeout: timeoutMs });
      this.#client = client;
      this.#transport = transport;
      client.setNotificationHandler(types.ToolListChangedNotificationSchema, () => {
        this.#refreshing = this.#refreshing.then(() => this.#registerTools(gen)).catch((err) =>
          this.#emit({ type: "error", message: `Cannot refresh the tools: ${(err as Error).message}` })
        );
      });
      await this.#registerTools(gen, combined);
      if (gen !== this.#generation) throw new UnavailableError("closed while it started");
    } catch (err) {
      this.#generation++; // the close below must not count as losing a live server
      if (transport instanceof ChildProcessTransport && !timeout.aborted && !signal?.aborted) {
        await transport.waitForExit(EXIT_WAIT_MS); // a write to a dead pipe: let the exit status and stderr arrive
      }
      const error = this.#startError(err, transport, timeout.aborted ? timeoutMs : undefined, signal);
      await client.close().catch(() => {});
      await transport.close().catch(() => {});
      if ((this.#state as McpServerState) === "closed") {
        throw new UnavailableError(`MCP server "${this.server}" was closed while it started`);
      }
      this.#state = "disconnected";
      throw error;
    }
    this.#state = "connected";
    this.#attempts = 0;
    this.#lastError = undefined;
    this.#emit({ type: "connected", tools: this.toolNames });
  }

  async #makeTransport(): Promise<Transport> {
    const c = this.config;
    if (c.type === "http") {
      const { StreamableHTTPClientTransport } = await import(
        "@modelcontextprotocol/sdk/client/streamableHttp.js"
      ) as typeof SdkHttp;
      return new StreamableHTTPClientTransport(new URL(c.url), {
        requestInit: { headers: c.headers },
        fetch: this.#options.fetch,
      });
    }
    const pass = [...INHERITED_ENV_VARS, ...(this.#options.passEnv ?? [])];
    const base = sandboxEnv(withoutFunctions(this.#options.env ?? processEnv(pass)), pass);
    return new ChildProcessTransport({
      command: c.command,
      args: c.args,
      env: { ...base, ...c.env },
      cwd: c.cwd ?? this.#options.cwd ?? this.#options.roots?.[0],
      onStderr: (line) => this.#emit({ type: "stderr", message: line }),
    });
  }

  #exitDetail(transport: Transport): string | undefined {
    if (!(transport instanceof ChildProcessTransport) || !transport.exitStatus) return undefined;
    const s = transport.exitStatus;
    const how = s.signal ? `was killed by ${s.signal}` : `exited with code ${s.code}`;
    const tail = transport.stderrTail.trim().split("\n").slice(-5).join("\n");
    return `the server process ${how}${tail ? `: ${tail}` : ""}`;
  }

  #startError(
    err: unknown,
    transport: Transport,
    timedOutMs: number | undefined,
    signal?: AbortSignal,
  ): Error {
    const what = this.config.type === "http" ? this.config.url : this.config.command;
    const prefix = `Cannot start MCP server "${this.server}" (${what})`;
    if (err instanceof Deno.errors.NotFound) {
      return new UnavailableError(`${prefix}: program not found: check "command" in the MCP config and PATH`);
    }
    if (signal?.aborted) return new PaddockError("aborted", `${prefix}: the start was aborted`);
    const exit = this.#exitDetail(transport);
    if (timedOutMs !== undefined && !exit) {
      return new ToolTimeoutError(
        `${prefix}: no answer to "initialize" within ${timedOutMs} ms: raise the start timeout or check the server`,
      );
    }
    return new UnavailableError(`${prefix}: ${exit ?? (err as Error).message}`, { cause: err });
  }

  /** Lists the server's tools (every page) and registers them, replacing the previous set. */
  async #registerTools(gen: number, signal?: AbortSignal): Promise<void> {
    const client = this.#client;
    if (!client || gen !== this.#generation) return;
    const tools: McpTool[] = [];
    if (client.getServerCapabilities()?.tools) {
      let cursor: string | undefined;
      do {
        const page = await client.listTools(cursor ? { cursor } : {}, {
          signal,
          timeout: this.callTimeoutMs,
        });
        tools.push(...page.tools);
        cursor = page.nextCursor;
      } while (cursor && tools.length < MAX_LISTED_ITEMS);
    }
    if (gen !== this.#generation) return;
    const registry = this.#options.registry;
    this.#unregisterTools(`MCP server "${this.server}" no longer offers it`);
    for (const tool of tools) {
      const name = mcpToolName(this.server, tool.name, (n) => registry.has(n) || this.#tools.has(n));
      registry.register(adaptMcpTool(this, tool, name));
      if (this.#allowed.has(name)) registry.allow(name);
      this.#tools.set(name, tool.name);
    }
    if (this.#state === "connected") this.#emit({ type: "tools_changed", tools: this.toolNames });
  }

  /** The server went away: drop its tools, remember why, schedule a reconnect. */
  #lost(gen: number, why: string): void {
    if (gen !== this.#generation || this.#state !== "connected") return; // a failing start is handled by its caller
    this.#generation++;
    this.#state = "disconnected";
    this.#lastError = why;
    this.#unregisterTools(`MCP server "${this.server}" disconnected (${why})`);
    const client = this.#client;
    this.#client = undefined;
    this.#transport = undefined;
    client?.close().catch(() => {});
    this.#emit({ type: "disconnected", message: why });
    this.#scheduleReconnect();
  }

  /** Unregisters the current tools, remembering which were in the allowed set for their return. */
  #unregisterTools(reason?: string): void {
    const registry = this.#options.registry;
    for (const name of this.#tools.keys()) {
      if (registry.allowed.has(name)) this.#allowed.add(name);
      registry.unregister(name, reason);
    }
    this.#tools.clear();
  }

  #scheduleReconnect(): void {
    const policy = this.#options.reconnect ?? {};
    const max = policy.maxAttempts ?? DEFAULT_RECONNECT_ATTEMPTS;
    if (this.#state === "closed") return;
    if (this.#attempts >= max) {
      this.#state = "failed";
      this.#emit({ type: "failed", message: this.#lastError });
      return;
    }
    const delay = Math.min(
      (policy.initialDelayMs ?? DEFAULT_RECONNECT_DELAY_MS) * 2 ** this.#attempts,
      policy.maxDelayMs ?? MAX_RECONNECT_DELAY_MS,
    );
    this.#attempts++;
    this.#emit({ type: "reconnecting", message: `attempt ${this.#attempts} of ${max} in ${delay} ms` });
    clearTimeout(this.#timer);
    this.#timer = setTimeout(() => {
      this.#timer = undefined;
      this.#connect().catch((err) => {
        this.#lastError = (err as Error).message;
        this.#scheduleReconnect();
      });
    }, delay);
  }

  #requireClient(): Client {
    if (this.#state === "connected" && this.#client) return this.#client;
    const why = this.#lastError ? `: ${this.#lastError}` : "";
    const next = this.#state === "failed" || this.#state === "closed"
      ? "it will not be retried in this session"
      : "Paddock is reconnecting; try again shortly";
    throw new UnavailableError(`MCP server "${this.server}" is ${this.#state}${why}: ${next}`);
  }

  /** Calls a tool by its name on the server. */
  async callTool(
    tool: string,
    args: Record<string, unknown>,
    options: { signal: AbortSignal; onProgress?: (message: string) => void },
  ): Promise<CallToolResult> {
    const client = this.#requireClient();
    try {
      return await client.callTool({ name: tool, arguments: args }, undefined, {
        signal: options.signal,
        timeout: this.callTimeoutMs,
        onprogress: options.onProgress
          ? (p) =>
            options.onProgress!(
              `progress ${p.progress}${p.total ? `/${p.total}` : ""}${p.message ? `: ${p.message}` : ""}`,
            )
          : undefined,
      }) as CallToolResult;
    } catch (err) {
      throw this.#callError(err, `calling "${tool}"`, options.signal);
    }
  }

  /** Lists resources and templates (every page, up to {@link MAX_LISTED_ITEMS}). */
  async listResources(
    signal?: AbortSignal,
  ): Promise<{ resources: McpResourceEntry[]; templates: McpResourceTemplateEntry[] }> {
    const client = this.#requireClient();
    const resources: McpResourceEntry[] = [];
    const templates: McpResourceTemplateEntry[] = [];
    if (!client.getServerCapabilities()?.resources) return { resources, templates };
    const opts = { signal, timeout: this.callTimeoutMs };
    try {
      let cursor: string | undefined;
      do {
        const page = await client.listResources(cursor ? { cursor } : {}, opts);
        resources.push(...page.resources.map((r) => ({ ...r, server: this.server })));
        cursor = page.nextCursor;
      } while (cursor && resources.length < MAX_LISTED_ITEMS);
      do {
        const page = await client.listResourceTemplates(cursor ? { cursor } : {}, opts).catch((err) => {
          if (sdk && mcpErrorCode(err) === sdk.types.ErrorCode.MethodNotFound) {
            return { resourceTemplates: [] };
          }
          throw err;
        });
        templates.push(...page.resourceTemplates.map((t) => ({ ...t, server: this.server })));
        cursor = (page as { nextCursor?: string }).nextCursor;
      } while (cursor && templates.length < MAX_LISTED_ITEMS);
    } catch (err) {
      throw this.#callError(err, "listing resources", signal);
    }
    return { resources, templates };
  }

  /** Reads one resource. */
  async readResource(uri: string, signal?: AbortSignal): Promise<ReadResourceResult> {
    const client = this.#requireClient();
    try {
      return await client.readResource({ uri }, { signal, timeout: this.callTimeoutMs });
    } catch (err) {
      throw this.#callError(err, `reading "${uri}"`, signal);
    }
  }

  #callError(err: unknown, doing: string, signal?: AbortSignal): unknown {
    if (signal?.aborted) return signal.reason;
    const at = `MCP server "${this.server}"`;
    const code = mcpErrorCode(err);
    if (code !== undefined) {
      const { ErrorCode } = sdk!.types;
      const message = (err as Error).message;
      switch (code) {
        case ErrorCode.RequestTimeout:
          return new ToolTimeoutError(`${at} did not answer ${doing} within ${this.callTimeoutMs} ms`);
        case ErrorCode.ConnectionClosed:
          return new UnavailableError(`${at} disconnected while ${doing}: ${this.#lastError ?? message}`);
        case ErrorCode.InvalidParams:
          return new InvalidInputError(`${at} rejected the arguments when ${doing}: ${stripCode(message)}`);
        case ErrorCode.MethodNotFound:
          return new UnavailableError(`${at} does not support ${doing}: ${stripCode(message)}`);
        default:
          return new PaddockError("execution_failed", `${at} failed ${doing}: ${stripCode(message)}`);
      }
    }
    // Not an MCP error: the transport failed (an HTTP server went away, a write to a dead pipe).
    const message = (err as Error)?.message ?? String(err);
    if (this.config.type === "http") this.#lost(this.#generation, message);
    return new UnavailableError(`${at} is unreachable while ${doing}: ${message}`, { cause: err });
  }

  /** Disconnects for good: stops reconnecting, unregisters the tools, stops the server process. */
  async close(): Promise<void> {
    clearTimeout(this.#timer);
    this.#timer = undefined;
    const connecting = this.#connecting;
    this.#state = "closed";
    this.#generation++;
    this.#unregisterTools(`MCP server "${this.server}" was closed`);
    const client = this.#client;
    const transport = this.#transport;
    this.#client = undefined;
    this.#transport = undefined;
    await client?.close().catch(() => {});
    await transport?.close().catch(() => {});
    await connecting?.catch(() => {});
  }

  #emit(event: Omit<McpEvent, "server">): void {
    try {
      this.#options.onEvent?.({ ...event, server: this.server } as McpEvent);
    } catch {
      // an observer's failure must not break the connection
    }
  }
}

function stripCode(message: string): string {
  return message.replace(/^MCP error -?\d+: /, "");
}

/** Drops exported bash functions (`BASH_FUNC_x%%=() { …`): a server is no shell. */
function withoutFunctions(env: Readonly<Record<string, string>>): Record<string, string> {
  return Object.fromEntries(Object.entries(env).filter(([, v]) => !v.startsWith("()")));
}

/**
 * Every configured MCP server of a session, and the one call the CLI and
 * library users make: {@link attachMcpServers}.
 *
 * @module
 */
import type { ReadResourceResult } from "./_sdk_types.ts";
import { NotFoundError } from "../errors.ts";
import type { Tool } from "../tool/define_tool.ts";
import type { ToolRegistry } from "../tool/registry.ts";
import type { Runtime } from "../runtime/runtime.ts";
import { listMcpResourcesTool } from "./list_resources_tool.ts";
import { readMcpResourceTool } from "./read_resource_tool.ts";
import { McpConnection, type McpConnectionOptions, type McpServerState } from "./client.ts";
import { gateMcpServers, loadMcpConfig, type McpConfig } from "./config.ts";
import type { McpResourceListing, McpResourceSource } from "./resources.ts";

// the interface lives with the resource tools' needs; importers of the manager keep finding it here
export type { McpResourceListing, McpResourceSource } from "./resources.ts";

/**
 * Options of {@link McpManager}: those of every connection but the registry.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { ToolRegistry } from "../../mod.ts";
 * import { McpManager, type McpManagerOptions } from "./manager.ts";
 * const options: McpManagerOptions = {
 *   roots: ["/w"],
 *   callTimeoutMs: 60_000,
 *   reconnect: { maxAttempts: 2 },
 * };
 * await using manager = new McpManager({ servers: {}, warnings: [] }, new ToolRegistry(), options);
 * assert.deepEqual(manager.serverNames, []);
 * ```
 */
export type McpManagerOptions = Omit<McpConnectionOptions, "registry">;

/**
 * One server's state, for `paddock tools`, logs and UIs.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { builtinTools, createRuntime, ToolRegistry } from "../../mod.ts";
 * import { McpManager, type McpServerStatus } from "./manager.ts";
 * import { serveMcpHttp } from "./server.ts";
 * await using served = createRuntime({ tools: builtinTools().filter((t) => t.name === "TodoWrite") });
 * await using http = serveMcpHttp(served, { port: 0 });
 * const config = { servers: { self: { type: "http" as const, url: http.url, headers: {} } }, warnings: [] };
 * await using manager = new McpManager(config, new ToolRegistry());
 * const [status]: McpServerStatus[] = await manager.start();
 * assert.equal(status.state, "connected");
 * assert.deepEqual(status.tools, ["mcp__self__TodoWrite"]);
 * ```
 */
export interface McpServerStatus {
  /** Name as configured. */
  name: string;
  /** Transport. */
  type: "stdio" | "http";
  /** Where the connection is. */
  state: McpServerState;
  /** Registry names of its tools now. */
  tools: string[];
  /** Why it last failed or went away. */
  error?: string;
}

/**
 * Connects a set of servers into one registry.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { McpManager } from "./manager.ts";
 * import { ToolRegistry } from "../tool/registry.ts";
 * await using m = new McpManager({ servers: {}, warnings: [] }, new ToolRegistry());
 * assert.equal((await m.start()).length, 0);
 * ```
 */
export class McpManager implements McpResourceSource, AsyncDisposable {
  /** The servers file it was made from. */
  readonly config: McpConfig;
  #connections = new Map<string, McpConnection>();

  /** Creates a connection per server; nothing starts until {@link start}. */
  constructor(config: McpConfig, registry: ToolRegistry, options: McpManagerOptions = {}) {
    this.config = config;
    for (const [name, server] of Object.entries(config.servers)) {
      this.#connections.set(name, new McpConnection(name, server, { ...options, registry }));
    }
  }

  /** Configured server names, in config order. */
  get serverNames(): string[] {
    return [...this.#connections.keys()];
  }

  /**
   * Starts every server in parallel. A server that fails is reported in the
   * status (and retried in the background); it does not fail the others.
   */
  async start(signal?: AbortSignal): Promise<McpServerStatus[]> {
    await Promise.all([...this.#connections.values()].map((c) => c.start(signal).catch(() => {})));
    return this.status();
  }

  /** The state of every server. */
  status(): McpServerStatus[] {
    return [...this.#connections.values()].map((c) => ({
      name: c.server,
      type: c.config.type,
      state: c.state,
      tools: c.toolNames,
      ...(c.lastError ? { error: c.lastError } : {}),
    }));
  }

  /** The connection of a server; throws {@link NotFoundError} naming the configured ones. */
  connection(server: string): McpConnection {
    const c = this.#connections.get(server);
    if (!c) {
      const names = this.serverNames.map((n) => `"${n}"`).join(", ") || "none";
      throw new NotFoundError(`No MCP server named "${server}": the configured servers are ${names}`);
    }
    return c;
  }

  /** Reconnects one server now (see {@link McpConnection.reconnect}); returns its status. */
  async reconnect(server: string, signal?: AbortSignal): Promise<McpServerStatus> {
    await this.connection(server).reconnect(signal).catch(() => {});
    return this.status().find((s) => s.name === server)!;
  }

  /** Resources and templates of one server, or of every connected server. */
  async listResources(server: string | undefined, signal?: AbortSignal): Promise<McpResourceListing> {
    const targets = server === undefined ? [...this.#connections.values()] : [this.connection(server)];
    const out: McpResourceListing = { resources: [], templates: [], errors: [] };
    const results = await Promise.all(targets.map((c) =>
      c.listResources(signal).then(
        (r) => ({ c, r }),
        (err: Error) => ({ c, err }),
      )
    ));
    for (const item of results) {
      if ("err" in item) {
        if (server !== undefined) throw item.err;
        out.errors.push({ server: item.c.server, message: item.err.message });
      } else {
        out.resources.push(...item.r.resources);
        out.templates.push(...item.r.templates);
      }
    }
    return out;
  }

  /** Reads one resource from one server. */
  readResource(server: string, uri: string, signal?: AbortSignal): Promise<ReadResourceResult> {
    return this.connection(server).readResource(uri, signal);
  }

  /** Closes every connection (tools unregistered, processes stopped). */
  async close(): Promise<void> {
    await Promise.all([...this.#connections.values()].map((c) => c.close()));
  }

  /** Same as {@link close}. */
  [Symbol.asyncDispose](): Promise<void> {
    return this.close();
  }
}

/**
 * The ListMcpResources and ReadMcpResource tools over a manager (or any
 * {@link McpResourceSource}).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { McpManager, mcpResourceTools } from "./manager.ts";
 * import { ToolRegistry } from "../tool/registry.ts";
 * const tools = mcpResourceTools(new McpManager({ servers: {}, warnings: [] }, new ToolRegistry()));
 * assert.equal(tools.map((t) => t.name).join(), "ListMcpResources,ReadMcpResource");
 * ```
 */
export function mcpResourceTools(source: McpResourceSource): Tool[] {
  return [listMcpResourcesTool(source), readMcpResourceTool(source)];
}

/**
 * Options of {@link attachMcpServers}.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { createRuntime } from "../../mod.ts";
 * import { type AttachMcpOptions, attachMcpServers } from "./manager.ts";
 * const file = await Deno.makeTempFile({ suffix: ".json" });
 * await Deno.writeTextFile(file, '{"mcpServers": {}}');
 * await using rt = createRuntime({ tools: [] });
 * const options: AttachMcpOptions = { resourceTools: false, startTimeoutMs: 5_000 };
 * await attachMcpServers(rt, file, options);
 * assert.ok(!rt.registry.has("ListMcpResources"));
 * await Deno.remove(file);
 * ```
 */
export interface AttachMcpOptions extends Partial<McpManagerOptions> {
  /** Cancels the start. */
  signal?: AbortSignal;
  /** Register ListMcpResources and ReadMcpResource when at least one server is configured. Default true. */
  resourceTools?: boolean;
}

/**
 * Reads a servers file (or takes one already parsed), connects every server
 * that may start (none in plan mode, none a deny rule such as `mcp__evil`
 * names; each left out is in `manager.config.warnings`), registers their tools into
 * `runtime.registry` (and the two resource tools when any server is
 * configured), and closes them all when the runtime's session closes. A
 * server that fails to start does not throw: see `manager.status()`.
 * `MCP_TIMEOUT` and `MCP_TOOL_TIMEOUT` (ms) in the runtime's env set the start
 * and per-call limits when the options do not. Tool annotations set side-effect
 * classes only with `trustAnnotations`.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { attachMcpServers } from "./manager.ts";
 * import { createRuntime } from "../runtime/runtime.ts";
 * const file = Deno.makeTempFileSync({ suffix: ".json" });
 * Deno.writeTextFileSync(file, '{"mcpServers":{}}');
 * await using rt = createRuntime({ tools: [] });
 * const manager = await attachMcpServers(rt, file);
 * assert.ok(manager.serverNames.length === 0 && !rt.registry.has("ListMcpResources"));
 * Deno.removeSync(file);
 * ```
 */
export async function attachMcpServers(
  runtime: Runtime,
  configPath: string | McpConfig,
  options: AttachMcpOptions = {},
): Promise<McpManager> {
  const env = runtime.options.env;
  const loaded = typeof configPath === "string"
    ? await loadMcpConfig(configPath, { env: env ?? {}, signal: options.signal })
    : configPath;
  // a server a deny rule names never starts, and none starts in plan mode
  const config = gateMcpServers(loaded, { deny: runtime.options.rules?.deny, mode: runtime.session.mode });
  const { signal, resourceTools, ...rest } = options;
  const manager = new McpManager(config, runtime.registry, {
    roots: runtime.session.roots,
    cwd: runtime.session.cwd,
    // the client narrows it at the spawn (the allowlist, the user's passEnv, never Paddock's keys)
    env,
    ...(runtime.options.passEnv ? { passEnv: runtime.options.passEnv } : {}),
    fetch: runtime.options.fetch,
    startTimeoutMs: positiveInt(env?.MCP_TIMEOUT),
    callTimeoutMs: positiveInt(env?.MCP_TOOL_TIMEOUT),
    ...definedOnly(rest),
  });
  runtime.session.addCleanup(() => manager.close());
  if (manager.serverNames.length > 0 && resourceTools !== false) {
    for (const tool of mcpResourceTools(manager)) {
      if (!runtime.registry.has(tool.name)) runtime.registry.register(tool);
    }
  }
  await manager.start(signal);
  return manager;
}

function positiveInt(value: string | undefined): number | undefined {
  const n = Number(value);
  return value !== undefined && Number.isInteger(n) && n > 0 ? n : undefined;
}

function definedOnly<T extends object>(o: T): Partial<T> {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as Partial<T>;
}

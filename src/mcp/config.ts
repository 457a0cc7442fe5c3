/**
 * The MCP servers file: the `.mcp.json` shape Claude Code reads,
 * `{mcpServers: {name: {command, args, env, cwd} | {type: "http", url, headers}}}`.
 * `${VAR}` and `${VAR:-default}` in strings are expanded from the environment.
 *
 * @module
 */
import { dirname, isAbsolute, resolve } from "node:path";
import { InvalidInputError } from "../errors.ts";

/**
 * A server started as a child process and spoken to over stdin/stdout.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { type McpStdioServerConfig, parseMcpConfig } from "./config.ts";
 * const config = parseMcpConfig(
 *   '{"mcpServers": {"fs": {"command": "npx", "args": ["-y", "@modelcontextprotocol/server-filesystem", "/w"]}}}',
 * );
 * const fs = config.servers.fs as McpStdioServerConfig;
 * assert.equal(fs.type, "stdio");
 * assert.equal(fs.command, "npx");
 * ```
 */
export interface McpStdioServerConfig {
  /** Always `stdio` once parsed (the file may leave it out). */
  type: "stdio";
  /** The program to run. */
  command: string;
  /** Its arguments. Default: none. */
  args: string[];
  /** Extra environment variables (added to a minimal inherited set). Default: none. */
  env: Record<string, string>;
  /** Working directory (relative paths resolve against the config file's folder). Default: the first root. */
  cwd?: string;
}

/**
 * A server reached over streamable HTTP.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { type McpHttpServerConfig, parseMcpConfig } from "./config.ts";
 * const text =
 *   '{"mcpServers": {"docs": {"type": "http", "url": "https://x.example/mcp", "headers": {"Authorization": "Bearer ${TOKEN}"}}}}';
 * const docs = parseMcpConfig(text, { env: { TOKEN: "t0k" } }).servers.docs as McpHttpServerConfig;
 * assert.equal(docs.headers.Authorization, "Bearer t0k");
 * ```
 */
export interface McpHttpServerConfig {
  /** Always `http`. */
  type: "http";
  /** The endpoint, such as `http://127.0.0.1:3000/mcp`. */
  url: string;
  /** Headers sent with every request (for example `Authorization`). Default: none. */
  headers: Record<string, string>;
}

/**
 * One configured server.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import type { McpServerConfig } from "./config.ts";
 * const where = (c: McpServerConfig): string =>
 *   c.type === "http" ? c.url : [c.command, ...c.args].join(" ");
 * assert.equal(
 *   where({ type: "stdio", command: "deno", args: ["run", "server.ts"], env: {} }),
 *   "deno run server.ts",
 * );
 * ```
 */
export type McpServerConfig = McpStdioServerConfig | McpHttpServerConfig;

/**
 * A parsed servers file.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { type McpConfig, parseMcpConfig } from "./config.ts";
 * const config: McpConfig = parseMcpConfig('{"mcpServers": {}, "other": 1}', { source: ".mcp.json" });
 * assert.deepEqual(config.servers, {});
 * assert.equal(config.source, ".mcp.json");
 * ```
 */
export interface McpConfig {
  /** Servers by name, in file order. */
  servers: Record<string, McpServerConfig>;
  /** Where it was read from, when it came from a file. */
  source?: string;
  /** Things that were ignored (unknown fields), one sentence each. */
  warnings: string[];
}

/**
 * Options of {@link parseMcpConfig}.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { parseMcpConfig, type ParseMcpConfigOptions } from "./config.ts";
 * const options: ParseMcpConfigOptions = { env: { HOME: "/home/ada" }, baseDir: "/w" };
 * const config = parseMcpConfig(
 *   '{"mcpServers": {"fs": {"command": "fs-server", "args": ["${HOME}/notes"]}}}',
 *   options,
 * );
 * assert.ok(config.servers.fs.type === "stdio" && config.servers.fs.args[0] === "/home/ada/notes");
 * ```
 */
export interface ParseMcpConfigOptions {
  /** Named in error messages. Default `MCP config`. */
  source?: string;
  /** Variables for `${VAR}` expansion. Default: none (unset variables without a default are an error). */
  env?: Readonly<Record<string, string>>;
  /** Folder relative `cwd` values resolve against. Default: left as written. */
  baseDir?: string;
}

const STDIO_KEYS = new Set(["type", "command", "args", "env", "cwd"]);
const HTTP_KEYS = new Set(["type", "url", "headers"]);

/**
 * Parses and checks a servers file's text. Every problem is reported at once,
 * each naming the server and the field.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { parseMcpConfig } from "./config.ts";
 * const c = parseMcpConfig('{"mcpServers":{"fs":{"command":"mcp-fs","args":["${HOME}"]}}}', {
 *   env: { HOME: "/h" },
 * });
 * assert.ok(c.servers.fs.type === "stdio" && c.servers.fs.args[0] === "/h");
 * ```
 */
export function parseMcpConfig(text: string, options: ParseMcpConfigOptions = {}): McpConfig {
  const source = options.source ?? "MCP config";
  const fail = (detail: string): never => {
    throw new InvalidInputError(`Invalid MCP config "${source}": ${detail}`);
  };
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (err) {
    fail(`not valid JSON: ${(err as Error).message}`);
  }
  if (!isRecord(raw)) return fail('the top level must be an object with an "mcpServers" object');
  const servers = raw.mcpServers;
  if (!isRecord(servers)) return fail('"mcpServers" must be an object mapping server names to settings');
  const problems: string[] = [];
  const warnings: string[] = [];
  const out: Record<string, McpServerConfig> = {};
  const expand = (value: string, where: string): string =>
    value.replace(/\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}/g, (_m, name: string, fallback?: string) => {
      const v = options.env?.[name];
      if (v !== undefined && v !== "") return v;
      if (fallback !== undefined) return fallback;
      problems.push(`${where} uses "\${${name}}", which is not set: set it or write "\${${name}:-default}"`);
      return "";
    });
  for (const [name, entry] of Object.entries(servers)) {
    const at = `mcpServers["${name}"]`;
    if (name.trim() === "") {
      problems.push("a server name is empty: give every server a name");
      continue;
    }
    if (!isRecord(entry)) {
      problems.push(`${at} must be an object with "command" (stdio) or "type": "http" and "url"`);
      continue;
    }
    const type = entry.type ?? (entry.url !== undefined ? "http" : "stdio");
    if (type === "http" || type === "streamable-http") {
      unknownKeys(entry, HTTP_KEYS, at, warnings);
      if (typeof entry.url !== "string" || entry.url === "") {
        problems.push(`${at}.url must be a non-empty string such as "http://127.0.0.1:3000/mcp"`);
        continue;
      }
      const url = expand(entry.url, `${at}.url`);
      if (!URL.canParse(url) || !/^https?:$/.test(new URL(url).protocol)) {
        problems.push(`${at}.url must be an http or https URL, got "${url}"`);
        continue;
      }
      out[name] = { type: "http", url, headers: stringMap(entry.headers, `${at}.headers`, problems, expand) };
    } else if (type === "stdio") {
      unknownKeys(entry, STDIO_KEYS, at, warnings);
      if (typeof entry.command !== "string" || entry.command.trim() === "") {
        problems.push(`${at}.command must be a non-empty string naming the program to run`);
        continue;
      }
      let args: string[] = [];
      if (entry.args !== undefined) {
        if (!Array.isArray(entry.args) || entry.args.some((a) => typeof a !== "string")) {
          problems.push(`${at}.args must be an array of strings`);
        } else args = entry.args.map((a, i) => expand(a, `${at}.args[${i}]`));
      }
      let cwd: string | undefined;
      if (entry.cwd !== undefined) {
        if (typeof entry.cwd !== "string") problems.push(`${at}.cwd must be a string`);
        else {
          cwd = expand(entry.cwd, `${at}.cwd`);
          if (options.baseDir && !isAbsolute(cwd)) cwd = resolve(options.baseDir, cwd);
        }
      }
      out[name] = {
        type: "stdio",
        command: expand(entry.command, `${at}.command`),
        args,
        env: stringMap(entry.env, `${at}.env`, problems, expand),
        ...(cwd !== undefined ? { cwd } : {}),
      };
    } else if (type === "sse") {
      problems.push(`${at} uses the old "sse" transport, which Paddock does not speak: use "type": "http"`);
    } else {
      problems.push(`${at}.type must be "stdio" or "http", got ${JSON.stringify(type)}`);
    }
  }
  if (problems.length) fail(problems.join("; "));
  return { servers: out, warnings, ...(options.source ? { source: options.source } : {}) };
}

/**
 * Reads and parses a servers file; relative `cwd` values resolve against its folder.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { loadMcpConfig } from "./config.ts";
 * const file = Deno.makeTempFileSync({ suffix: ".json" });
 * Deno.writeTextFileSync(file, '{"mcpServers":{}}');
 * assert.equal(Object.keys((await loadMcpConfig(file)).servers).length, 0);
 * Deno.removeSync(file);
 * ```
 */
export async function loadMcpConfig(
  path: string,
  options: { env?: Readonly<Record<string, string>>; signal?: AbortSignal } = {},
): Promise<McpConfig> {
  let text: string;
  try {
    text = await Deno.readTextFile(path, { signal: options.signal });
  } catch (err) {
    if (err instanceof Deno.errors.NotFound) {
      throw new InvalidInputError(`Cannot read MCP config "${path}": the file does not exist`);
    }
    throw new InvalidInputError(`Cannot read MCP config "${path}": ${(err as Error).message}`, {
      cause: err,
    });
  }
  return parseMcpConfig(text, { source: path, env: options.env, baseDir: dirname(resolve(path)) });
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === "object" && !Array.isArray(v);
}

function unknownKeys(
  entry: Record<string, unknown>,
  known: Set<string>,
  at: string,
  warnings: string[],
): void {
  for (const k of Object.keys(entry)) {
    if (!known.has(k)) {
      warnings.push(
        `${at} has an unknown field "${k}", ignored: the known ones are ${
          [...known].map((x) => `"${x}"`).join(", ")
        }`,
      );
    }
  }
}

function stringMap(
  value: unknown,
  at: string,
  problems: string[],
  expand: (v: string, where: string) => string,
): Record<string, string> {
  if (value === undefined) return {};
  if (!isRecord(value)) {
    problems.push(`${at} must be an object of string values`);
    return {};
  }
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(value)) {
    if (typeof v !== "string") {
      problems.push(`${at}["${k}"] must be a string, got ${v === null ? "null" : typeof v}`);
    } else out[k] = expand(v, `${at}["${k}"]`);
  }
  return out;
}

/**
 * What decides whether a configured server may start at all.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import type { ServerGate } from "./config.ts";
 * const gate: ServerGate = { deny: ["mcp__evil"], mode: "default" };
 * assert.equal(gate.deny?.length, 1);
 * ```
 */
export interface ServerGate {
  /** Deny rules: one naming `mcp__<server>` (or `mcp__<server>__*`, or a `*` prefix of it) stops that server. */
  deny?: readonly string[];
  /** The permission mode: in `plan` no server starts. */
  mode?: string;
}

/**
 * The servers allowed to start: none in plan mode, and none a deny rule names
 * whole (its tools could never run, so its process never starts). Each one
 * left out adds a warning saying why.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { gateMcpServers, parseMcpConfig } from "./config.ts";
 * const config = parseMcpConfig('{"mcpServers": {"evil": {"command": "x"}, "ok": {"command": "y"}}}');
 * const gated = gateMcpServers(config, { deny: ["mcp__evil"] });
 * assert.deepEqual(Object.keys(gated.servers), ["ok"]);
 * assert.equal(Object.keys(gateMcpServers(config, { mode: "plan" }).servers).length, 0);
 * ```
 */
export function gateMcpServers(config: McpConfig, gate: ServerGate): McpConfig {
  const servers: Record<string, McpServerConfig> = {};
  const warnings = [...config.warnings];
  for (const [name, server] of Object.entries(config.servers)) {
    if (gate.mode === "plan") {
      warnings.push(`MCP server "${name}" not started: no MCP server starts in plan mode`);
      continue;
    }
    const rule = (gate.deny ?? []).find((r) => denyNamesServer(r, name));
    if (rule !== undefined) {
      warnings.push(`MCP server "${name}" not started: the deny rule "${rule}" names it`);
      continue;
    }
    servers[name] = server;
  }
  return { ...config, servers, warnings };
}

/** Whether deny rule `rule` covers every tool of server `name` (a rule with content does not). */
function denyNamesServer(rule: string, name: string): boolean {
  const r = rule.trim();
  if (r.includes("(")) return false;
  const prefix = `mcp__${name.replace(/[^A-Za-z0-9_-]/g, "_")}__`;
  if (r === prefix.slice(0, -2) || r === prefix || r === `${prefix}*`) return true;
  return r.endsWith("*") && prefix.startsWith(r.slice(0, -1));
}

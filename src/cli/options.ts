/**
 * From flags, env and the settings file to a running runtime, for the
 * subcommands that build one (`tools`, `perms`, `exec`, `run`, `chat`,
 * `mcp`). {@link resolveConfig} assembles the runtime options, once
 * (precedence: flag, env, settings); {@link startRuntime} adds what needs
 * loading (`--tools` modules, the MCP servers file), creates the runtime and
 * checks Deno's grants. The flags themselves are in `flags.ts`.
 *
 * @module
 */
import { resolve } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { checkGrants, formatGrantReport, type GrantReport } from "../permissions/grants.ts";
import type { Tool } from "../tool/define_tool.ts";
import type { BuiltinToolOptions } from "../tools/mod.ts";
import { ENV_NAMES } from "./env.ts";
import { commandHooks, hasCommandHooks, HOOK_SHELL, parseCommandHooks } from "../runtime/command_hooks.ts";
import type { WebToolOptions } from "../web/options.ts";
import { searchProviderHost } from "../web/choose_provider.ts";
import { isPrivateAddress } from "../web/net_guard.ts";
import { terminalInteraction } from "./interactive.ts";
import { isPermissionMode, type PermissionMode } from "../permissions/modes.ts";
import { createRuntime, type Runtime, type RuntimeOptions, runtimeToolOptions } from "../runtime/runtime.ts";
import { installShutdownHandlers } from "../tasks/shutdown.ts";
import { loadSettings, type Settings, settingsPath } from "../session/settings.ts";
import { type CliIo, UsageError } from "./command.ts";
import type { RuntimeFlagValues } from "./flags.ts";

/** Flags, env and settings resolved into runtime options plus the settings read. */
export interface ResolvedConfig {
  /** Options for {@link createRuntime}: everything the flags, env and settings decide. */
  runtime: RuntimeOptions;
  /** The settings file's content. */
  settings: Settings;
  /** The settings file path. */
  settingsFile: string;
  /** The MCP config file path, if one is named or present. */
  mcpConfig?: string;
}

/**
 * Resolves flags, env and the settings file into the runtime's options: the
 * one place they are assembled. Throws {@link UsageError} for bad values.
 */
export function resolveConfig(flags: RuntimeFlagValues, io: CliIo): ResolvedConfig {
  const roots = (flags.root?.length ? flags.root : [io.cwd]).map((r) => resolve(io.cwd, r));
  for (const r of roots) {
    let ok = false;
    try {
      ok = Deno.statSync(r).isDirectory;
    } catch (err) {
      // without read permission on the root, Deno's own checks will speak later
      ok = err instanceof Deno.errors.NotCapable;
    }
    if (!ok) throw new UsageError(`--root "${r}" is not a directory`);
  }
  const file = settingsPath(roots[0]);
  const settings = loadSettings(file);
  const modeValue = flags["permission-mode"] ?? io.env.PADDOCK_PERMISSION_MODE ??
    settings.permissions?.defaultMode;
  if (modeValue !== undefined && !isPermissionMode(modeValue)) {
    throw new UsageError(
      `--permission-mode must be one of default, acceptEdits, plan, bypassPermissions, dontAsk, got "${modeValue}"`,
    );
  }
  const list = (v?: string) => v?.split(",").map((s) => s.trim()).filter(Boolean) ?? [];
  const hosts = (flags["allow-host"]?.length ? flags["allow-host"] : settings.allowedHosts) ?? [];
  const projectMcp = resolve(roots[0], ".mcp.json");
  let mcpConfig = flags["mcp-config"] ? resolve(io.cwd, flags["mcp-config"]) : undefined;
  if (!mcpConfig) {
    try {
      if (Deno.statSync(projectMcp).isFile) mcpConfig = projectMcp;
    } catch {
      // no project MCP config
    }
  }
  let hookConfig;
  try {
    hookConfig = parseCommandHooks(settings.hooks);
  } catch (err) {
    throw new UsageError(`${(err as Error).message} (in "${file}")`);
  }
  const hooks = hasCommandHooks(hookConfig);
  const sandbox = flags.sandbox ?? settings.sandbox ?? false;
  return {
    settings,
    settingsFile: file,
    mcpConfig,
    runtime: {
      roots,
      cwd: flags.cwd ? resolve(io.cwd, flags.cwd) : undefined,
      mode: modeValue as PermissionMode | undefined,
      rules: {
        allow: [...(flags.allow ?? []), ...(settings.permissions?.allow ?? [])],
        deny: [...(flags.deny ?? []), ...(settings.permissions?.deny ?? [])],
        ask: [...(flags.ask ?? []), ...(settings.permissions?.ask ?? [])],
      },
      allowedTools: list(flags["allowed-tools"]),
      excludeTools: list(flags["disallowed-tools"]),
      ...(hooks ? { hooks: commandHooks(hookConfig) } : {}),
      sandbox,
      toolOptions: runtimeToolOptions({
        sandbox,
        toolOptions: { web: webOptions(hosts), interaction: terminalInteraction(io) },
      }),
      hosts: withSearchHost(hosts, io.env),
      outputDir: flags["output-dir"] ? resolve(io.cwd, flags["output-dir"]) : undefined,
      env: { ...io.env },
      envNames: [...ENV_NAMES],
      extraRead: [
        file,
        mcpConfig ?? projectMcp,
        // a --tools module is imported at run time, so Deno asks to read it and the code it imports
        ...(flags.tools ?? []).filter((t) => !/^[a-z]+:/.test(t)).map((t) => resolve(io.cwd, t)),
        ...(flags.tools?.length ? localPackageRoot() : []),
      ],
      extraRun: hooks ? [HOOK_SHELL] : [],
    },
  };
}

/**
 * What `--allow-host` means for the web tools: the only domains WebFetch and
 * WebSearch may use (unless `*`), and the private or loopback ones among
 * them reachable over plain http.
 */
export function webOptions(hosts: readonly string[]): WebToolOptions {
  if (hosts.length === 0 || hosts.includes("*")) return {};
  const names = [...new Set(hosts.map(hostnameOf))];
  const local = names.filter((h) => h === "localhost" || isPrivateAddress(h));
  return { allowedDomains: names, ...(local.length ? { allowPrivateHosts: local } : {}) };
}

function hostnameOf(host: string): string {
  try {
    return new URL(`http://${host}`).hostname.replace(/^\[|\]$/g, "");
  } catch {
    return host;
  }
}

/** Adds the configured search provider's host, so `--allow-net` covers WebSearch. */
function withSearchHost(hosts: readonly string[], env: Readonly<Record<string, string>>): string[] {
  if (hosts.includes("*")) return [...hosts];
  const provider = searchProviderHost({}, env);
  return provider && !hosts.includes(provider) ? [...hosts, provider] : [...hosts];
}

/**
 * Imports a module of user tools: its default export or its `tools` export,
 * a tool or an array of tools.
 */
export async function loadToolModule(specifier: string, cwd: string): Promise<Tool[]> {
  const url = /^[a-z]+:/.test(specifier) ? specifier : pathToFileURL(resolve(cwd, specifier)).href;
  let mod: Record<string, unknown>;
  try {
    // a user's module named at run time: `deno publish` warns that it cannot analyze this, as intended
    mod = await import(url);
  } catch (err) {
    throw new UsageError(`Cannot load tools from "${specifier}": ${(err as Error).message}`);
  }
  const value = mod.default ?? mod.tools;
  const list = Array.isArray(value) ? value : value ? [value] : [];
  const tools = list.filter((t): t is Tool =>
    typeof t === "object" && t !== null && typeof (t as Tool).name === "string" &&
    typeof (t as Tool).execute === "function"
  );
  if (tools.length === 0) {
    throw new UsageError(
      `"${specifier}" exports no tools: export a tool or an array of tools as default or "tools"`,
    );
  }
  return tools;
}

/** What a command adds to the resolved configuration in {@link startRuntime}. */
export interface StartOptions extends Omit<RuntimeOptions, "toolOptions"> {
  /** Run the start-up permission check (and connect MCP servers). Default true; `perms` turns it off. */
  checkGrants?: boolean;
  /**
   * Which MCP servers file to use: `auto` (`--mcp-config`, else the project's
   * `.mcp.json`), `explicit` (only `--mcp-config`), `off`. Default `auto`.
   */
  mcp?: "auto" | "explicit" | "off";
  /** Flags, env and settings already resolved by the caller (so they are not read twice). */
  config?: ResolvedConfig;
  /** Built-in tool options laid over the resolved ones (the agent's model hooks, MCP's handlers). */
  toolOptions?: Partial<BuiltinToolOptions>;
}

/** What the MCP servers of a file need from Deno: programs to run and hosts to reach. */
async function mcpNeeds(
  file: string,
  env: Readonly<Record<string, string>>,
): Promise<{ run: string[]; net: string[] }> {
  const { loadMcpConfig } = await import("../mcp/config.ts");
  let parsed;
  try {
    parsed = await loadMcpConfig(file, { env });
  } catch (err) {
    throw new UsageError((err as Error).message);
  }
  const run: string[] = [];
  const net: string[] = [];
  for (const server of Object.values(parsed.servers)) {
    if (server.type === "stdio") run.push(server.command);
    else net.push(new URL(server.url).host);
  }
  return { run, net };
}

/** Connects the servers of an MCP file, telling stderr about failures and later disconnects. */
export async function attachProjectMcp(runtime: Runtime, file: string, io: CliIo): Promise<void> {
  // the MCP client and its SDK load only when there are servers to connect
  const { attachMcpServers } = await import("../mcp/manager.ts");
  const manager = await attachMcpServers(runtime, file, {
    signal: io.signal,
    onEvent: (e) => {
      if (e.type === "disconnected" || e.type === "reconnecting" || e.type === "failed") {
        io.err(`paddock: MCP server "${e.server}" ${e.type}${e.message ? `: ${e.message}` : ""}\n`);
      }
    },
  });
  for (const s of manager.status()) {
    if (s.state !== "connected") io.err(`paddock: MCP server "${s.name}" is ${s.state}: ${s.error ?? ""}\n`);
  }
}

/**
 * Resolves config (unless given), loads `--tools` modules, creates the
 * runtime, connects MCP servers, and runs the start-up permission check
 * (printing it to stderr unless `--quiet`).
 */
export async function startRuntime(
  flags: RuntimeFlagValues,
  io: CliIo,
  options: StartOptions = {},
): Promise<{ runtime: Runtime; config: ResolvedConfig; grants?: GrantReport }> {
  const { checkGrants: check, mcp: mcpMode = "auto", config: given, toolOptions, ...extra } = options;
  const config = given ?? resolveConfig(flags, io);
  const mcpFile = mcpMode === "auto" || (mcpMode !== "off" && flags["mcp-config"])
    ? config.mcpConfig
    : undefined;
  const mcp = mcpFile ? await mcpNeeds(mcpFile, io.env) : { run: [], net: [] };
  const extraTools: Tool[] = [];
  for (const spec of flags.tools ?? []) extraTools.push(...await loadToolModule(spec, io.cwd));
  const runtime = createRuntime({
    ...config.runtime,
    ...extra,
    toolOptions: { ...config.runtime.toolOptions, ...toolOptions },
    extraTools: [...(extra.extraTools ?? []), ...extraTools],
    extraRun: [...(config.runtime.extraRun ?? []), ...mcp.run],
    extraNet: mcp.net,
  });
  // kill every process group the runtime started when io.signal aborts (SIGINT/SIGTERM/SIGHUP in
  // processIo), even if the command is still waiting on stdin, and whatever is left at exit
  installShutdownHandlers(runtime, { signals: [], signal: io.signal });
  if (check === false) return { runtime, config };
  if (mcpFile) await attachProjectMcp(runtime, mcpFile, io);
  const grants = checkGrants(runtime.registry, runtime.policy(), { path: io.env.PATH });
  const needsSaying = grants.tools.some((t) => !t.granted) || grants.excess.length > 0 ||
    grants.missingPrograms.length > 0 || grants.runtimeMissing.length > 0;
  if (needsSaying && !flags.quiet) io.err(`Permission check:\n${formatGrantReport(grants)}\n`);
  return { runtime, config, grants };
}

function localPackageRoot(): string[] {
  const url = new URL("../../", import.meta.url);
  return url.protocol === "file:" ? [fileURLToPath(url).replace(/\/$/, "")] : [];
}

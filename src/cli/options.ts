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
import { dirname, resolve } from "node:path";
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
import {
  CONFIRMATION_PRESETS,
  isConfirmationPreset,
  isPermissionMode,
  type PermissionMode,
} from "../permissions/modes.ts";
import { createRuntime, type Runtime, type RuntimeOptions, runtimeToolOptions } from "../runtime/runtime.ts";
import { installShutdownHandlers } from "../tasks/shutdown.ts";
import { loadSettings, type Settings, settingsPath, userSettingsPath } from "../session/settings.ts";
import {
  changedRunFiles,
  type LayeredSettings,
  loadLayeredSettings,
  type ProjectFiles,
  trustFilePath,
} from "../session/trust.ts";
import type { McpConfig, ServerGate } from "../mcp/config.ts";
import { isPaddockSecret } from "../sandbox/env.ts";
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
  /** The project's `.mcp.json` text as read and trusted, when `mcpConfig` is that file. */
  mcpText?: string;
  /** The layered settings: what the project would widen, whether it is trusted (see `session/trust.ts`). */
  layered: LayeredSettings;
}

/** Options of {@link resolveConfig}. */
export interface ResolveOptions {
  /** Whether the project's `.mcp.json` is used when `--mcp-config` is not given. Default true. */
  projectMcp?: boolean;
}

/**
 * Resolves flags, env and the settings files into the runtime's options: the
 * one place they are assembled (precedence: flag, env, user settings, the
 * project's settings, whose widening part only once trusted). Says on stderr,
 * in one line, what an untrusted project's files would have widened. Throws
 * {@link UsageError} for bad values.
 */
export function resolveConfig(
  flags: RuntimeFlagValues,
  io: CliIo,
  options: ResolveOptions = {},
): ResolvedConfig {
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
  const layered = loadLayered(roots[0], io, {
    projectMcp: options.projectMcp !== false && !flags["mcp-config"],
  });
  const settings = layered.settings;
  const modeValue = flags["permission-mode"] ?? io.env.PADDOCK_PERMISSION_MODE ??
    settings.permissions?.defaultMode;
  if (modeValue !== undefined && !isPermissionMode(modeValue)) {
    throw new UsageError(
      `--permission-mode must be one of default, acceptEdits, plan, bypassPermissions, dontAsk, got "${modeValue}"`,
    );
  }
  const preset = flags.confirm;
  if (preset !== undefined && !isConfirmationPreset(preset)) {
    throw new UsageError(`--confirm must be one of ${CONFIRMATION_PRESETS.join(", ")}, got "${preset}"`);
  }
  const list = (v?: string) => v?.split(",").map((s) => s.trim()).filter(Boolean) ?? [];
  const hosts = (flags["allow-host"]?.length ? flags["allow-host"] : settings.allowedHosts) ?? [];
  const projectMcp = resolve(roots[0], ".mcp.json");
  // the project's .mcp.json only once trusted, parsed from the very bytes the trust digest covered
  const mcpConfig = flags["mcp-config"]
    ? resolve(io.cwd, flags["mcp-config"])
    : layered.mcpText !== undefined
    ? projectMcp
    : undefined;
  let hookConfig;
  try {
    hookConfig = parseCommandHooks(settings.hooks);
  } catch (err) {
    const where = [file, layered.userFile].filter(Boolean).map((f) => `"${f}"`).join(" or ");
    throw new UsageError(`${(err as Error).message} (in ${where})`);
  }
  const hooks = hasCommandHooks(hookConfig);
  const user = userSandboxPolicy(flags, io.env);
  const sandbox = user.sandbox;
  return {
    settings,
    settingsFile: file,
    mcpConfig,
    ...(mcpConfig === projectMcp && layered.mcpText !== undefined ? { mcpText: layered.mcpText } : {}),
    layered,
    runtime: {
      roots,
      cwd: flags.cwd ? resolve(io.cwd, flags.cwd) : undefined,
      mode: modeValue as PermissionMode | undefined,
      ...(preset ? { preset } : {}),
      rules: {
        allow: [...(flags.allow ?? []), ...(settings.permissions?.allow ?? [])],
        deny: [...(flags.deny ?? []), ...(settings.permissions?.deny ?? [])],
        ask: [...(flags.ask ?? []), ...(settings.permissions?.ask ?? [])],
        userAllow: user.allow,
      },
      allowedTools: list(flags["allowed-tools"]),
      excludeTools: list(flags["disallowed-tools"]),
      ...(hooks
        ? {
          hooks: commandHooks(hookConfig, {
            env: io.env,
            passEnv: user.passEnv,
            refuse: () => runFilesChanged(layered.project),
          }),
        }
        : {}),
      sandbox,
      toolOptions: runtimeToolOptions({
        sandbox,
        allowUnsandboxedCommands: user.allowUnsandboxedCommands,
        toolOptions: { web: webOptions(hosts), interaction: terminalInteraction(io) },
        passEnv: user.passEnv,
      }),
      passEnv: user.passEnv,
      hosts: withSearchHost(hosts, io.env),
      outputDir: flags["output-dir"] ? resolve(io.cwd, flags["output-dir"]) : undefined,
      env: { ...io.env },
      envNames: [...ENV_NAMES],
      extraRead: [
        file,
        ...(user.file ? [user.file] : []),
        ...(trustFilePath(io.env) ? [trustFilePath(io.env)!] : []),
        mcpConfig ?? projectMcp,
        // a --tools module is imported at run time, so Deno asks to read it and the code it imports
        ...(flags.tools ?? []).filter((t) => !/^[a-z]+:/.test(t)).map((t) => resolve(io.cwd, t)),
        ...(flags.tools?.length ? localPackageRoot() : []),
      ],
      extraRun: hooks ? [HOOK_SHELL] : [],
    },
  };
}

/** Why trusted hooks may not run now: a file they run changed since the start (the model may have written it). */
function runFilesChanged(project: ProjectFiles): string | undefined {
  const changed = changedRunFiles(project);
  if (changed.length === 0) return undefined;
  return `${changed.map((f) => `"${f}"`).join(", ")} changed since this run started, so it is not the code ` +
    `that was trusted: review it, then run 'paddock trust' and start again`;
}

/** What the user alone decides about the sandbox: from the flags, then their own settings file. */
export interface UserSandboxPolicy {
  /** Whether Bash runs in the OS sandbox. */
  sandbox: boolean;
  /** Whether a Bash call may ask to run unsandboxed (`dangerouslyDisableSandbox`). */
  allowUnsandboxedCommands: boolean;
  /** The user's own allow rules (flags, then user settings): the only ones that approve protected paths. */
  allow: string[];
  /** Environment variable names the user passes to Bash, hooks and MCP servers (flags, then user settings). */
  passEnv: string[];
  /** The user settings file, when there is a home. */
  file?: string;
}

/**
 * The sandbox policy from the user's own layer only: `--sandbox` /
 * `--no-sandbox` / `--allow-unsandboxed-commands` and `--allow`, then
 * `sandbox`, `allowUnsandboxedCommands` and `permissions.allow` in the user
 * settings file (`~/.config/paddock/settings.json`). A project's settings and
 * the model (Config) never reach these: the sandbox is on unless the user
 * turned it off.
 */
export function userSandboxPolicy(
  flags: Pick<
    RuntimeFlagValues,
    "sandbox" | "no-sandbox" | "allow-unsandboxed-commands" | "allow" | "pass-env"
  >,
  env: Readonly<Record<string, string>>,
): UserSandboxPolicy {
  if (flags.sandbox && flags["no-sandbox"]) {
    throw new UsageError(`--sandbox and --no-sandbox contradict each other`);
  }
  const file = userSettingsPath(env);
  let user: Settings = {};
  if (file) {
    try {
      user = loadSettings(file);
    } catch (err) {
      throw new UsageError((err as Error).message);
    }
  }
  const bool = (v: unknown) => typeof v === "boolean" ? v : undefined;
  const strings = (v: unknown) => Array.isArray(v) ? v.filter((x): x is string => typeof x === "string") : [];
  const userAllow = Array.isArray(user.permissions?.allow)
    ? user.permissions.allow.filter((r): r is string => typeof r === "string")
    : [];
  return {
    sandbox: flags["no-sandbox"] ? false : flags.sandbox ?? bool(user.sandbox) ?? true,
    allowUnsandboxedCommands: flags["allow-unsandboxed-commands"] ??
      bool(user.allowUnsandboxedCommands) ?? false,
    allow: [...(flags.allow ?? []), ...userAllow],
    passEnv: [...(flags["pass-env"] ?? []), ...strings(user.passEnv)],
    ...(file ? { file } : {}),
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
function mcpNeeds(servers: McpConfig): { run: string[]; net: string[] } {
  const run: string[] = [];
  const net: string[] = [];
  for (const server of Object.values(servers.servers)) {
    if (server.type === "stdio") run.push(server.command);
    else net.push(new URL(server.url).host);
  }
  return { run, net };
}

/**
 * The servers of `file` that may start: the trusted project file is parsed
 * from the bytes its trust covered; none in plan mode, none a deny rule names.
 */
async function loadServers(
  config: ResolvedConfig,
  file: string,
  env: Readonly<Record<string, string>>,
  gate: ServerGate,
): Promise<{ servers: McpConfig; notes: string[] }> {
  const { gateMcpServers, loadMcpConfig, parseMcpConfig } = await import("../mcp/config.ts");
  let parsed;
  try {
    // a project's file never expands Paddock's own keys (`${OPENAI_API_KEY}` in a URL), trusted or not
    const projectEnv = Object.fromEntries(Object.entries(env).filter(([k]) => !isPaddockSecret(k)));
    parsed = file === config.mcpConfig && config.mcpText !== undefined
      ? parseMcpConfig(config.mcpText, { source: file, env: projectEnv, baseDir: dirname(file) })
      : await loadMcpConfig(file, { env });
  } catch (err) {
    throw new UsageError((err as Error).message);
  }
  const servers = gateMcpServers(parsed, gate);
  return { servers, notes: servers.warnings.slice(parsed.warnings.length) };
}

/**
 * Connects the servers of an MCP file (or of a parsed one), telling stderr about failures and later
 * disconnects. They are the user's own or trusted, so their tool annotations set side-effect classes.
 */
export async function attachProjectMcp(runtime: Runtime, file: string | McpConfig, io: CliIo): Promise<void> {
  // the MCP client and its SDK load only when there are servers to connect
  const { attachMcpServers } = await import("../mcp/manager.ts");
  const manager = await attachMcpServers(runtime, file, {
    signal: io.signal,
    trustAnnotations: true,
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
  const config = given ?? resolveConfig(flags, io, { projectMcp: mcpMode === "auto" });
  const mcpFile = mcpMode === "auto" || (mcpMode !== "off" && flags["mcp-config"])
    ? config.mcpConfig
    : undefined;
  const loaded = mcpFile
    ? await loadServers(config, mcpFile, extra.env ?? config.runtime.env ?? io.env, {
      mode: extra.mode ?? config.runtime.mode,
      deny: extra.rules?.deny ?? config.runtime.rules?.deny,
    })
    : undefined;
  for (const note of loaded?.notes ?? []) io.err(`paddock: ${note}\n`);
  const mcp = loaded ? mcpNeeds(loaded.servers) : { run: [], net: [] };
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
  if (loaded && Object.keys(loaded.servers.servers).length) {
    await attachProjectMcp(runtime, loaded.servers, io);
  }
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

/** The layered settings, and the one stderr line about what an untrusted project would have widened. */
function loadLayered(root: string, io: CliIo, options: { projectMcp: boolean }): LayeredSettings {
  let layered;
  try {
    layered = loadLayeredSettings(root, io.env, options);
  } catch (err) {
    throw new UsageError((err as Error).message);
  }
  const notice = trustNotice(layered);
  if (notice) io.err(`paddock: ${notice}\n`);
  return layered;
}

/**
 * The one line saying what of a project's configuration is ignored and how
 * to trust it, or undefined when nothing is.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { trustNotice } from "./options.ts";
 * const line = trustNotice({ ignored: ["hooks"], refused: [], mcpServers: [], project: { root: "/w" } });
 * assert.match(line!, /ignored .*hooks.*paddock trust/);
 * ```
 */
export function trustNotice(
  layered: Pick<LayeredSettings, "ignored" | "refused" | "mcpServers"> & { project: { root: string } },
): string | undefined {
  const parts: string[] = [];
  if (layered.ignored.length) {
    const what = layered.ignored.map((k) =>
      k === ".mcp.json servers" && layered.mcpServers.length
        ? `.mcp.json servers (${layered.mcpServers.map((n) => `"${n}"`).join(", ")})`
        : k
    );
    parts.push(
      `ignored this project's ${
        joinList(what)
      } (not trusted): review and trust them with 'paddock trust' in "${layered.project.root}"`,
    );
  }
  if (layered.refused.length) {
    parts.push(
      `${parts.length ? "and" : "ignored"} its ${
        joinList(layered.refused)
      }, which a project can never set, even trusted (use your own flags or ~/.config/paddock/settings.json)`,
    );
  }
  return parts.length ? parts.join("; ") : undefined;
}

function joinList(items: readonly string[]): string {
  return items.length < 2 ? items.join("") : `${items.slice(0, -1).join(", ")} and ${items.at(-1)}`;
}

/**
 * A runtime: a registry of the chosen tools, a session, and the run options
 * (rules, mode, hooks, approver) bound together. The CLI, the agent loop and
 * the MCP server all start from one.
 *
 * @module
 */
import type { ConfirmationPreset, PermissionMode } from "../permissions/modes.ts";
import type { PermissionRules } from "../permissions/rules.ts";
import type { FlagPolicy } from "../permissions/deno_flags.ts";
import type { Tool } from "../tool/define_tool.ts";
import type { Approver, Hooks, ToolEvent, ToolMiddleware } from "../tool/hooks.ts";
import { ToolRegistry } from "../tool/registry.ts";
import {
  executeToolCalls,
  type RunOptions,
  runTool,
  type ToolCallRequest,
  type ToolCallResult,
} from "../tool/run_tool.ts";
import { defaultOutputRoot, Session } from "../session/session.ts";
import type { BuiltinToolOptions } from "../tools/mod.ts";
import { lazyBuiltinTools } from "../tools/catalog.ts";
import { defaultLedgerDir, reapOrphanedTasks } from "../tasks/ledger.ts";
import { cleanStaleTemps } from "../files/atomic_write.ts";
import { cleanStaleSessions } from "../session/output_root.ts";
import { sandboxPermissions } from "../sandbox/needs.ts";

/**
 * Options of {@link createRuntime}.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { createRuntime, type RuntimeOptions } from "../../mod.ts";
 * const options: RuntimeOptions = { roots: [Deno.cwd()], mode: "plan", excludeTools: ["Bash", "Agent"] };
 * await using rt = createRuntime(options);
 * assert.ok(rt.registry.has("Read"));
 * assert.ok(!rt.registry.has("Bash"));
 * ```
 */
export interface RuntimeOptions {
  /** Workspace roots. Default: the process cwd. */
  roots?: string[];
  /** Initial cwd. Default: the first root. */
  cwd?: string;
  /** Permission mode. Default `default`. */
  mode?: PermissionMode;
  /** Confirmation preset. Default `safe`. */
  preset?: ConfirmationPreset;
  /** Permission rules. */
  rules?: PermissionRules;
  /** Tools allowed without asking. */
  allowedTools?: string[];
  /** Tools to leave out entirely. */
  excludeTools?: string[];
  /**
   * The tools. Default: the built-in tools with `toolOptions` (see {@link runtimeToolOptions}), each
   * loaded on its first call (`run`, `runBatch`); call `await runtime.registry.load()` before reading
   * their definitions or calling `runTool` on the registry yourself.
   */
  tools?: Tool[];
  /** Tools registered after `tools` (or the built-in ones), such as a `--tools` module's. */
  extraTools?: Tool[];
  /** Options of the built-in tools. */
  toolOptions?: BuiltinToolOptions;
  /** Asked when a call needs confirmation. */
  approver?: Approver;
  /** Hooks. */
  hooks?: Hooks;
  /** Middleware. */
  middleware?: ToolMiddleware[];
  /** Progress events of every call. */
  onEvent?: (e: ToolEvent) => void;
  /** Environment for tools. */
  env?: Record<string, string>;
  /**
   * Environment variable names Bash commands (sandboxed or not) get from `env`, besides PATH, HOME,
   * LANG, LC_*, TERM, TZ, USER, LOGNAME, SHELL and TMPDIR (the CLI's `--pass-env`). Paddock's own
   * model and search keys (OPENAI_API_KEY, BRAVE_API_KEY, BRAVE_SEARCH_API_KEY, SEARXNG*,
   * PADDOCK_*KEY*…) never reach a command, a hook or an MCP server, even when named here.
   * @default {[]}
   */
  passEnv?: string[];
  /**
   * Output folder, used as it is and kept after the runtime closes.
   * @default {a private per-session folder under `<XDG_RUNTIME_DIR or TMPDIR or /tmp>/paddock-<uid>`, removed on close}
   */
  outputDir?: string;
  /** Hosts Network tools may reach. */
  hosts?: string[];
  /** Model endpoint host, for the flag computation. */
  modelHost?: string;
  /**
   * Run Bash in the OS sandbox (unless `toolOptions.bash.sandbox` says otherwise): bubblewrap on
   * Linux, sandbox-exec on macOS. Where it cannot start, Bash fails closed and says why; pass
   * `false` to run Bash with only Deno's own checks.
   * @default {true}
   */
  sandbox?: boolean;
  /**
   * Let a Bash call ask to run outside the sandbox with `dangerouslyDisableSandbox` (unless
   * `toolOptions.bash.allowUnsandboxedCommands` says otherwise). Such a call always asks the
   * approver, in every mode; without this, the field is refused.
   * @default {false}
   */
  allowUnsandboxedCommands?: boolean;
  /** Injected fetch. */
  fetch?: typeof fetch;
  /** Environment variable names the process reads (for `--allow-env`). */
  envNames?: string[];
  /** Files the process reads besides the tools' needs (settings, MCP config). */
  extraRead?: string[];
  /** Programs the process runs besides the tools' needs (MCP stdio servers). */
  extraRun?: string[];
  /** Hosts the process reaches besides the tools' needs (MCP HTTP servers). */
  extraNet?: string[];
}

/**
 * A registry, a session and run options bound together.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { createRuntime, type Runtime } from "../../mod.ts";
 * await using rt: Runtime = createRuntime({ roots: [Deno.cwd()] });
 * const [todo, unknown] = await rt.runBatch([
 *   { name: "TodoWrite", input: { todos: [] } },
 *   { name: "Unknown", input: {} },
 * ]);
 * assert.ok(todo.ok);
 * assert.equal(unknown.error?.code, "tool_not_found");
 * assert.ok(rt.policy().tools.some((t) => t.name === "Read"));
 * ```
 */
export interface Runtime extends AsyncDisposable {
  /** The tools. */
  registry: ToolRegistry;
  /** The session. */
  session: Session;
  /** Options every call runs with. */
  runOptions: RunOptions;
  /** The options it was made with. */
  options: RuntimeOptions;
  /** Runs one call. */
  run(name: string, input: unknown, extra?: Partial<RunOptions>): Promise<ToolCallResult>;
  /** Runs the calls of one model turn. */
  runBatch(calls: ToolCallRequest[], extra?: Partial<RunOptions>): Promise<ToolCallResult[]>;
  /** The flag policy for the enabled tools. */
  policy(): FlagPolicy;
  /** Kills tasks, closes clients. */
  close(): Promise<void>;
}

/**
 * The built-in tools' options a runtime uses: `toolOptions` with `sandbox`
 * and `passEnv` applied to Bash (`sandbox: true` sandboxes the built-in Bash
 * unless its own option says otherwise). The one place where `sandbox` and
 * `passEnv` reach the tools.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { runtimeToolOptions } from "./runtime.ts";
 * assert.ok(runtimeToolOptions({ sandbox: true }).bash?.sandbox === true);
 * assert.ok(
 *   runtimeToolOptions({ sandbox: true, toolOptions: { bash: { sandbox: false } } }).bash?.sandbox ===
 *     false,
 * );
 * ```
 */
export function runtimeToolOptions(
  options: Pick<RuntimeOptions, "sandbox" | "allowUnsandboxedCommands" | "toolOptions" | "passEnv">,
): BuiltinToolOptions {
  const tools = options.toolOptions ?? {};
  const passEnv = tools.bash?.passEnv ?? options.passEnv;
  return {
    ...tools,
    bash: {
      ...tools.bash,
      sandbox: tools.bash?.sandbox ?? options.sandbox ?? true,
      allowUnsandboxedCommands: tools.bash?.allowUnsandboxedCommands ?? options.allowUnsandboxedCommands ??
        false,
      ...(passEnv ? { passEnv } : {}),
    },
  };
}

/** The sandbox part of the flag policy: whether Bash is sandboxed, and what the sandbox needs then. */
function sandboxPolicy(
  options: RuntimeOptions,
  roots: readonly string[],
): Pick<FlagPolicy, "sandbox" | "sandboxRead" | "sandboxWrite"> {
  const choice = options.toolOptions?.bash?.sandbox ?? options.sandbox ?? true;
  if (choice === false) return { sandbox: false };
  let home = options.env?.HOME;
  try {
    home ??= Deno.env.get("HOME");
  } catch {
    // not granted: no home folder to hide stores under
  }
  let xdgConfigHome = options.env?.XDG_CONFIG_HOME;
  try {
    xdgConfigHome ??= Deno.env.get("XDG_CONFIG_HOME");
  } catch {
    // not granted: the sandbox hides only ~/.config/paddock
  }
  const needs = sandboxPermissions(roots, { home, xdgConfigHome, settings: choice === true ? {} : choice });
  return { sandbox: true, sandboxRead: needs.read, sandboxWrite: needs.write };
}

/**
 * Creates a runtime.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { createRuntime } from "./runtime.ts";
 * await using rt = createRuntime({ roots: [Deno.cwd()], tools: [] });
 * assert.equal(rt.registry.names().length, 0);
 * ```
 */
export function createRuntime(options: RuntimeOptions = {}): Runtime {
  const session = new Session({
    roots: options.roots,
    cwd: options.cwd,
    mode: options.mode,
    outputDir: options.outputDir,
  });
  // reap the process groups a crashed runtime left in the task ledger (src/tasks/ledger.ts)
  const ledgerDir = options.toolOptions?.bash?.ledgerDir;
  if (ledgerDir !== false) reapOrphanedTasks(ledgerDir ?? defaultLedgerDir(session.roots[0]));
  // remove the temp files of atomic writes a killed process left (src/files/atomic_write.ts)
  cleanStaleTemps();
  cleanStaleSessions();
  const exclude = new Set(options.excludeTools ?? []);
  const registry = new ToolRegistry();
  const kept = <T extends { name: string }>(tools: readonly T[]) => tools.filter((t) => !exclude.has(t.name));
  if (options.tools) registry.registerAll(kept(options.tools));
  // the built-in tools load on first use (tools/catalog.ts): `exec Read` loads Read alone
  else kept(lazyBuiltinTools(runtimeToolOptions(options))).forEach((t) => registry.registerLazy(t));
  registry.registerAll(kept(options.extraTools ?? []));
  registry.allow(...(options.allowedTools ?? []));
  const runOptions: RunOptions = {
    session,
    rules: options.rules,
    preset: options.preset,
    approver: options.approver,
    hooks: options.hooks,
    middleware: options.middleware,
    onEvent: options.onEvent,
    env: options.env,
    fetch: options.fetch,
  };
  const runtime: Runtime = {
    registry,
    session,
    runOptions,
    options,
    run: async (name, input, extra) => {
      await registry.load(name);
      return runTool(registry, { name, input }, { ...runOptions, ...extra });
    },
    runBatch: async (calls, extra) => {
      await registry.load(...calls.map((c) => c.name));
      return executeToolCalls(registry, calls, { ...runOptions, ...extra });
    },
    policy: () => ({
      tools: registry.enabled().map((t) => ({
        name: t.name,
        sideEffect: t.sideEffect,
        programs: t.programs,
      })),
      roots: [...session.roots],
      outputDir: options.outputDir ?? defaultOutputRoot(),
      hosts: options.hosts,
      modelHost: options.modelHost,
      ...sandboxPolicy(options, session.roots),
      env: options.envNames,
      extraRead: options.extraRead,
      extraRun: options.extraRun,
      extraNet: options.extraNet,
    }),
    close: () => session.close(),
    [Symbol.asyncDispose]: () => session.close(),
  };
  return runtime;
}

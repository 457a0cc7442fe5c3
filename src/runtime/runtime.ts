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
import { type BuiltinToolOptions, builtinTools } from "../tools/mod.ts";
import { defaultLedgerDir, reapOrphanedTasks } from "../tasks/ledger.ts";
import { searchWorkerFiles, startWalkHelper } from "../search/walk_helper.ts";
import { indexAhead } from "../search/index_ahead.ts";

/** Options of {@link createRuntime}. */
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
  /** The tools. Default: {@link builtinTools} with `toolOptions`. */
  tools?: Tool[];
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
  /** Output folder. Default: a temp folder. */
  outputDir?: string;
  /** Hosts Network tools may reach. */
  hosts?: string[];
  /** Model endpoint host, for the flag computation. */
  modelHost?: string;
  /** Run Bash in the OS sandbox. */
  sandbox?: boolean;
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
  /**
   * Start the walk helper thread now, when Glob is enabled, so Glob's first
   * walk of a tree runs on two cores (`startWalkHelper`). Default false.
   */
  walkHelper?: boolean;
  /**
   * With `walkHelper`, index the workspace (the first root) on the helper
   * thread once it is ready, so Glob's first call finds the index warm; the
   * walk is dropped if Glob is called before it ends (`indexAhead`). For an
   * agent, whose first call comes after a model turn. Default false.
   */
  indexAhead?: boolean;
}

/** A registry, a session and run options bound together. */
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
 * Creates a runtime.
 *
 * @example
 * ```ts
 * import { createRuntime } from "./runtime.ts";
 * await using rt = createRuntime({ roots: [Deno.cwd()], tools: [] });
 * console.assert(rt.registry.names().length === 0);
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
  // `sandbox: true` also sandboxes the built-in Bash unless its options say otherwise
  const toolOptions = options.sandbox && options.toolOptions?.bash?.sandbox === undefined
    ? { ...options.toolOptions, bash: { ...options.toolOptions?.bash, sandbox: true } }
    : options.toolOptions;
  const all = options.tools ?? builtinTools(toolOptions);
  const exclude = new Set(options.excludeTools ?? []);
  const registry = new ToolRegistry(all.filter((t) => !exclude.has(t.name)));
  registry.allow(...(options.allowedTools ?? []));
  const globOn = () => registry.enabled().some((t) => t.name === "Glob");
  if (options.walkHelper && globOn()) {
    const helper = startWalkHelper();
    if (options.indexAhead && helper) {
      let closed = false;
      session.addCleanup(() => void (closed = true));
      const respectIgnore = toolOptions?.search?.respectGitignore;
      // best effort: if it cannot start, Glob's first call walks cold as it would have
      helper.whenReady.then(() => closed || indexAhead(session, { respectIgnore })).catch(() => {});
    }
  }
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
    run: (name, input, extra) => runTool(registry, { name, input }, { ...runOptions, ...extra }),
    runBatch: (calls, extra) => executeToolCalls(registry, calls, { ...runOptions, ...extra }),
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
      sandbox: options.sandbox,
      env: options.envNames,
      // Glob's worker threads load their modules under this process's read permission
      extraRead: [...(options.extraRead ?? []), ...(globOn() ? searchWorkerFiles() : [])],
      extraRun: options.extraRun,
      extraNet: options.extraNet,
    }),
    close: () => session.close(),
    [Symbol.asyncDispose]: () => session.close(),
  };
  return runtime;
}

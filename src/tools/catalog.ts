/**
 * The built-in tools as a table: each tool's name, side-effect class and
 * programs (what the permission check and the registry need), and a loader
 * that imports its module on first use. `paddock exec Read` loads the Read
 * tool alone this way: every module of the sixteen tools costs about 100 ms
 * and 12 MiB at start-up (bench/README.md, "Start-up").
 *
 * @module
 */
import type { LazyTool } from "../tool/registry.ts";
import type { Tool } from "../tool/define_tool.ts";
import type { SideEffect } from "../permissions/side_effect.ts";
import { locateRipgrep } from "../search/ripgrep.ts";
import { sandboxProgram } from "../sandbox/sandbox.ts";
import { containmentPrograms } from "../tasks/containment.ts";
import type { BuiltinToolOptions } from "./mod.ts";

/** One row of {@link BUILTIN_CATALOG}. */
interface CatalogRow {
  name: string;
  sideEffect: SideEffect;
  /** The programs the tool runs with these options; the same as the loaded tool's `programs`. */
  programs?: (options: BuiltinToolOptions) => readonly string[];
  /** Imports the tool's module and makes the tool. */
  load: (options: BuiltinToolOptions) => Promise<Tool>;
  /** Whether the options include the tool (Agent needs a model client). */
  included?: (options: BuiltinToolOptions) => boolean;
}

const rg = (o: BuiltinToolOptions) =>
  o.search?.engine === "in-process" ? [] : [locateRipgrep(o.search?.rgPath)];

/** What `createBashTool` puts in `programs`; a test compares the two. */
function bashPrograms(o: BuiltinToolOptions): string[] {
  const option = o.bash?.sandbox;
  const sandboxed = option === false ? undefined : option === undefined || option === true ? {} : option;
  return [
    o.bash?.shell ?? "bash",
    ...(sandboxed ? [sandboxProgram(sandboxed) ?? "bwrap"] : []),
    ...(!sandboxed || o.bash?.allowUnsandboxedCommands ? containmentPrograms(o.bash?.containment) : []),
  ];
}

/** The built-in tools in the order the model sees them (that of `builtinTools`). */
const BUILTIN_CATALOG: readonly CatalogRow[] = [
  { name: "Read", sideEffect: "ReadOnly", load: async () => (await import("./read/read.ts")).readTool },
  { name: "Write", sideEffect: "Mutating", load: async () => (await import("./write.ts")).writeTool },
  { name: "Edit", sideEffect: "Mutating", load: async () => (await import("./edit.ts")).editTool },
  {
    name: "NotebookEdit",
    sideEffect: "Mutating",
    load: async () => (await import("./notebook_edit.ts")).notebookEditTool,
  },
  {
    name: "Glob",
    sideEffect: "ReadOnly",
    programs: rg,
    load: async (o) => (await import("./glob.ts")).createGlobTool(o.search),
  },
  {
    name: "Grep",
    sideEffect: "ReadOnly",
    programs: rg,
    load: async (o) => (await import("./grep/grep.ts")).createGrepTool(o.search),
  },
  {
    name: "Bash",
    sideEffect: "Execute",
    programs: bashPrograms,
    load: async (o) => (await import("./bash/bash.ts")).createBashTool(o.bash),
  },
  {
    name: "TaskOutput",
    sideEffect: "None",
    load: async () => (await import("./task_output.ts")).taskOutputTool,
  },
  {
    name: "TaskStop",
    sideEffect: "Execute",
    programs: () => ["bash"],
    load: async () => (await import("./task_stop.ts")).taskStopTool,
  },
  {
    name: "WebFetch",
    sideEffect: "Network",
    load: async (o) => (await import("./web_fetch/web_fetch.ts")).createWebFetchTool(o.web),
  },
  {
    name: "WebSearch",
    sideEffect: "Network",
    load: async (o) => (await import("./web_search.ts")).createWebSearchTool(o.web),
  },
  {
    name: "TodoWrite",
    sideEffect: "None",
    load: async () => (await import("./todo_write.ts")).todoWriteTool,
  },
  {
    name: "AskUserQuestion",
    sideEffect: "Blocking",
    load: async (o) => (await import("./ask_user_question.ts")).createAskUserQuestionTool(o.interaction),
  },
  {
    name: "ExitPlanMode",
    sideEffect: "None",
    load: async (o) => (await import("./exit_plan_mode.ts")).createExitPlanModeTool(o.interaction),
  },
  { name: "Config", sideEffect: "Mutating", load: async () => (await import("./config.ts")).configTool },
  {
    name: "EnterWorktree",
    sideEffect: "Mutating",
    programs: () => ["git"],
    load: async () => (await import("./enter_worktree.ts")).enterWorktreeTool,
  },
  {
    name: "Agent",
    sideEffect: "Spawns",
    included: (o) => o.agent !== undefined,
    load: async (o) => (await import("./agent.ts")).agentTool(o.agent!),
  },
];

/**
 * The built-in tools `builtinTools(options)` returns, as registry entries
 * whose modules load on first use (`ToolRegistry.load`).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { ToolRegistry } from "../tool/registry.ts";
 * import { lazyBuiltinTools } from "./catalog.ts";
 * const registry = new ToolRegistry();
 * for (const entry of lazyBuiltinTools()) registry.registerLazy(entry);
 * assert.equal(registry.get("Read")?.sideEffect, "ReadOnly");
 * await registry.load("Read");
 * assert.match(registry.require("Read").description, /file/);
 * ```
 */
export function lazyBuiltinTools(options: BuiltinToolOptions = {}): LazyTool[] {
  return BUILTIN_CATALOG.filter((row) => row.included?.(options) ?? true).map((row) => {
    const programs = row.programs?.(options);
    let loading: Promise<Tool> | undefined;
    return {
      name: row.name,
      sideEffect: row.sideEffect,
      ...(programs ? { programs } : {}),
      load: () => loading ??= row.load(options),
    };
  });
}

/**
 * The built-in tool set.
 *
 * @module
 */
import type { Tool } from "../tool/define_tool.ts";
import { agentTool, type AgentToolOptions } from "./agent.ts";
import { type BashOptions, createBashTool } from "./bash/bash.ts";
import { taskOutputTool } from "./task_output.ts";
import { taskStopTool } from "./task_stop.ts";
import type { SearchToolOptions } from "../search/options.ts";
import { createGlobTool } from "./glob.ts";
import { createGrepTool } from "./grep/grep.ts";
import type { InteractionOptions } from "../tool/interaction.ts";
import { createAskUserQuestionTool } from "./ask_user_question.ts";
import { configTool } from "./config.ts";
import { enterWorktreeTool } from "./enter_worktree.ts";
import { createExitPlanModeTool } from "./exit_plan_mode.ts";
import { todoWriteTool } from "./todo_write.ts";
import { createWebFetchTool } from "./web_fetch/web_fetch.ts";
import { createWebSearchTool } from "./web_search.ts";
import { readTool } from "./read/read.ts";
import { writeTool } from "./write.ts";
import { editTool } from "./edit.ts";
import { notebookEditTool } from "./notebook_edit.ts";
import type { WebToolOptions } from "../web/options.ts";

/**
 * Options of the built-in tools, one field per tool family. Each field is
 * owned by that family's module.
 */
export interface BuiltinToolOptions {
  /** Handlers of the tools that wait for a person (AskUserQuestion, ExitPlanMode). */
  interaction?: InteractionOptions;
  /** Options of WebFetch and WebSearch: domain lists, private hosts, timeout, model hook, search provider. */
  web?: WebToolOptions;
  /** Glob and Grep: ignore files, Grep engine, budgets. */
  search?: SearchToolOptions;
  /** Bash and its background tasks: OS sandbox, default timeout, grace period, ledger folder. */
  bash?: BashOptions;
  /** The Agent tool (sub-agents): included only when set, since it needs a model client. */
  agent?: AgentToolOptions;
  // BUILTIN-OPTIONS (one field per tool family; keep this marker)
}

/**
 * Every built-in tool, in the order the model sees them.
 *
 * @example
 * ```ts
 * import { builtinTools } from "./mod.ts";
 * console.assert(Array.isArray(builtinTools()));
 * ```
 */
export function builtinTools(options: BuiltinToolOptions = {}): Tool[] {
  return [
    readTool,
    writeTool,
    editTool,
    notebookEditTool,
    createGlobTool(options.search),
    createGrepTool(options.search),
    createBashTool(options.bash),
    taskOutputTool,
    taskStopTool,
    createWebFetchTool(options.web),
    createWebSearchTool(options.web),
    todoWriteTool,
    createAskUserQuestionTool(options.interaction),
    createExitPlanModeTool(options.interaction),
    configTool,
    enterWorktreeTool,
    ...(options.agent ? [agentTool(options.agent)] : []),
    // BUILTIN-TOOLS (one line per tool; keep this marker)
  ];
}

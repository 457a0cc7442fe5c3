/**
 * The built-in tools: {@link builtinTools} for the whole set, and each tool's
 * value or factory with its input and result types, for programs that pick
 * tools one by one or read a result's `data`.
 *
 * @example Register a few built-in tools
 * ```ts
 * import assert from "node:assert/strict";
 * import { ToolRegistry } from "../../mod.ts";
 * import { createGlobTool, readTool } from "./mod.ts";
 * const registry = new ToolRegistry([readTool, createGlobTool()]);
 * assert.deepEqual(registry.names(), ["Read", "Glob"]);
 * ```
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

export { readTool } from "./read/read.ts";
export type {
  ReadData,
  ReadImageData,
  ReadInput,
  ReadNotebookData,
  ReadPdfData,
  ReadTextData,
} from "./read/read.ts";
export type { RenderedCell } from "../files/notebook.ts";
export { writeTool } from "./write.ts";
export type { WriteData, WriteInput } from "./write.ts";
export { editTool } from "./edit.ts";
export type { EditData, EditInput } from "./edit.ts";
export { notebookEditTool } from "./notebook_edit.ts";
export type { NotebookEditData, NotebookEditInput } from "./notebook_edit.ts";
export { createGlobTool } from "./glob.ts";
export type { GlobInput, GlobResult } from "./glob.ts";
export { createGrepTool } from "./grep/grep.ts";
export type { GrepInput, GrepResult } from "./grep/grep.ts";
export type { GrepMode } from "../search/ripgrep.ts";
export { DEFAULT_MATCH_BUDGET, DEFAULT_TIME_BUDGET_MS } from "../search/options.ts";
export type { SearchEngine, SearchToolOptions } from "../search/options.ts";
export { createBashTool, DEFAULT_BASH_TIMEOUT_MS } from "./bash/bash.ts";
export type { BashBackgroundResult, BashInput, BashOptions, BashResult } from "./bash/bash.ts";
export { findTask, taskOutputTool } from "./task_output.ts";
export type { TaskOutputInput, TaskOutputResult } from "./task_output.ts";
export { taskStopTool } from "./task_stop.ts";
export type { TaskStopInput, TaskStopResult } from "./task_stop.ts";
export { createWebFetchTool, DEFAULT_WEB_TIMEOUT_MS } from "./web_fetch/web_fetch.ts";
export type { WebFetchData, WebFetchInput } from "./web_fetch/web_fetch.ts";
export { createWebSearchTool } from "./web_search.ts";
export type { WebSearchData, WebSearchInput } from "./web_search.ts";
export type {
  SearchProviderConfig,
  WebFetchSummarizeArgs,
  WebFetchSummarizer,
  WebToolOptions,
} from "../web/options.ts";
export { currentTodos, TODO_STATUSES, todoWriteTool } from "./todo_write.ts";
export type { TodoItem, TodoStatus, TodoWriteInput, TodoWriteResult } from "./todo_write.ts";
export { createAskUserQuestionTool } from "./ask_user_question.ts";
export type { AskUserQuestionInput, AskUserQuestionResult } from "./ask_user_question.ts";
export { createExitPlanModeTool, enterPlanMode, planState } from "./exit_plan_mode.ts";
export type { ExitPlanModeInput, ExitPlanModeResult, PlanState } from "./exit_plan_mode.ts";
export type {
  AllowedPrompt,
  AskUserHandler,
  InteractionOptions,
  PlanApprover,
  PlanDecision,
  PlanRequest,
  Question,
  QuestionOption,
  UserAnswers,
} from "../tool/interaction.ts";
export { configTool, KNOWN_SETTINGS } from "./config.ts";
export type { ConfigInput, ConfigResult } from "./config.ts";
export { currentWorktree, enterWorktreeTool } from "./enter_worktree.ts";
export type { EnterWorktreeInput, EnterWorktreeResult, WorktreeInfo } from "./enter_worktree.ts";
export { agentTool, DEFAULT_AGENT_MAX_TURNS } from "./agent.ts";
export type { AgentToolData, AgentToolOptions } from "./agent.ts";

/**
 * Options of the built-in tools, one field per tool family. Each field is
 * owned by that family's module.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { type BuiltinToolOptions, builtinTools } from "./mod.ts";
 * const options: BuiltinToolOptions = {
 *   bash: { defaultTimeoutMs: 30_000 },
 *   search: { respectGitignore: false },
 *   interaction: { askUser: () => Promise.resolve({}) },
 * };
 * const names = builtinTools(options).map((t) => t.name);
 * assert.ok(names.includes("Bash") && names.includes("AskUserQuestion"));
 * assert.ok(!names.includes("Agent"));
 * ```
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
 * import assert from "node:assert/strict";
 * import { builtinTools } from "./mod.ts";
 * assert.ok(Array.isArray(builtinTools()));
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

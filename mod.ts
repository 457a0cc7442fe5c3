/**
 * Paddock: a Deno-native sandboxed agent runtime. Tools are values
 * (`defineTool`), a registry turns them into OpenAI-format definitions, and
 * one runner (`runTool`) validates, decides permissions, executes under a
 * signal and timeout, and truncates.
 *
 * @example
 * ```ts
 * import { z } from "zod";
 * import { defineTool, runTool, ToolRegistry } from "./mod.ts";
 * const hello = defineTool({
 *   name: "Hello",
 *   description: "Greets someone",
 *   sideEffect: "None",
 *   input: z.strictObject({ who: z.string().describe("Who to greet") }),
 *   execute: (input) => Promise.resolve(`Hello, ${input.who}`),
 * });
 * const registry = new ToolRegistry([hello]);
 * const result = await runTool(registry, { name: "Hello", input: { who: "Ada" } });
 * console.assert(result.text === "Hello, Ada");
 * ```
 *
 * @module
 */
export {
  AbortedError,
  ConflictError,
  describeError,
  ERROR_CODES,
  InvalidInputError,
  NotFoundError,
  PaddockError,
  PermissionDeniedError,
  ToolNotFoundError,
  ToolTimeoutError,
  UnavailableError,
} from "./src/errors.ts";
export type { ErrorCode } from "./src/errors.ts";
export { defineTool, isReadOnly, SIDE_EFFECTS } from "./src/tool/define_tool.ts";
export type {
  ImageContent,
  SideEffect,
  Tool,
  ToolContext,
  ToolOutput,
  ToolSpec,
} from "./src/tool/define_tool.ts";
export { Session } from "./src/session/session.ts";
export type { SessionEvent, SessionOptions } from "./src/session/session.ts";
export { fromAiSdkTools, fromLangChainTools, TOOL_ALIASES, ToolRegistry } from "./src/tool/registry.ts";
export type { AiSdkToolLike, LangChainToolLike, ToolDefinition, ViewFilter } from "./src/tool/registry.ts";
export { formatIssues, toJsonSchema } from "./src/tool/json_schema.ts";
export type { JsonSchema } from "./src/tool/json_schema.ts";
export { DEFAULT_MAX_OUTPUT_CHARS, truncateOutput } from "./src/tool/truncate.ts";
export type { Truncation } from "./src/tool/truncate.ts";
export {
  DEFAULT_TOOL_TIMEOUT_MS,
  executeToolCalls,
  MAX_INPUT_JSON_CHARS,
  runTool,
} from "./src/tool/run_tool.ts";
export type { RunOptions, ToolCallRequest, ToolCallResult } from "./src/tool/run_tool.ts";
export type {
  ApprovalAnswer,
  ApprovalRequest,
  Approver,
  Hooks,
  PostToolUseAnswer,
  PostToolUseEvent,
  PostToolUseHook,
  PreToolUseAnswer,
  PreToolUseEvent,
  PreToolUseHook,
  ToolEvent,
  ToolMiddleware,
} from "./src/tool/hooks.ts";
export { denyListMiddleware, loggingMiddleware } from "./src/tool/middleware.ts";
export {
  CONFIRMATION_PRESETS,
  isPermissionMode,
  PERMISSION_MODES,
  PLAN_MODE_BLOCKED,
  presetAsks,
} from "./src/permissions/modes.ts";
export type { ConfirmationPreset, PermissionMode } from "./src/permissions/modes.ts";
export { evaluateRules, parseRule, ruleMatches } from "./src/permissions/rules.ts";
export type { ParsedRule, PermissionRules, RuleSubject } from "./src/permissions/rules.ts";
export { decidePermission } from "./src/permissions/decide.ts";
export type { Decision, DecisionInput } from "./src/permissions/decide.ts";
export { denoRunLine, neededPermissions, toDenoFlags } from "./src/permissions/deno_flags.ts";
export type { FlagPolicy, PermissionSet, ToolNeeds } from "./src/permissions/deno_flags.ts";
export { checkGrants, formatGrantReport } from "./src/permissions/grants.ts";
export type { CheckOptions, GrantReport, PermissionQuery, ToolGrant } from "./src/permissions/grants.ts";
export { createRuntime } from "./src/runtime/runtime.ts";
export {
  commandHooks,
  DEFAULT_HOOK_TIMEOUT_MS,
  hasCommandHooks,
  HOOK_SHELL,
  parseCommandHooks,
} from "./src/runtime/command_hooks.ts";
export type { CommandHookConfig, CommandHooksConfig } from "./src/runtime/command_hooks.ts";
export type { Runtime, RuntimeOptions } from "./src/runtime/runtime.ts";
export { loadSettings, saveSettings, SETTINGS_FILE, settingsPath } from "./src/session/settings.ts";
export type { Settings } from "./src/session/settings.ts";
export { defaultOutputRoot } from "./src/session/session.ts";
export { isInside, resolveSafePath } from "./src/session/workspace.ts";
export type { SafePath, SafePathOptions } from "./src/session/workspace.ts";
export { builtinTools } from "./src/tools/mod.ts";
export { DEFAULT_READ_LIMIT, readTool } from "./src/tools/read/read.ts";
export type {
  ReadData,
  ReadImageData,
  ReadInput,
  ReadNotebookData,
  ReadPdfData,
  ReadTextData,
} from "./src/tools/read/read.ts";
export { writeTool } from "./src/tools/write.ts";
export type { WriteData, WriteInput } from "./src/tools/write.ts";
export { editTool } from "./src/tools/edit.ts";
export type { EditData, EditInput } from "./src/tools/edit.ts";
export { notebookEditTool } from "./src/tools/notebook_edit.ts";
export type { NotebookEditData, NotebookEditInput } from "./src/tools/notebook_edit.ts";
export { extractPdfPages } from "./src/files/pdf.ts";
export type { ExtractPdfOptions, PdfExtraction, PdfPageText } from "./src/files/pdf.ts";
export { atomicWriteFile } from "./src/files/atomic_write.ts";
export type { AtomicWriteOptions } from "./src/files/atomic_write.ts";
export type { LineEnding, TextEncodingName, TextFormat } from "./src/files/text.ts";
export type { ReadRecord } from "./src/files/read_state.ts";
export { currentTodos, MAX_TODOS, TODO_STATUSES, todoWriteTool } from "./src/tools/todo_write.ts";
export type { TodoItem, TodoStatus, TodoWriteInput, TodoWriteResult } from "./src/tools/todo_write.ts";
export {
  createAskUserQuestionTool,
  MAX_HEADER_CHARS,
  MAX_OPTIONS,
  MAX_QUESTIONS,
  MIN_OPTIONS,
} from "./src/tools/ask_user_question.ts";
export type { AskUserQuestionInput, AskUserQuestionResult } from "./src/tools/ask_user_question.ts";
export { createExitPlanModeTool, enterPlanMode, planState } from "./src/tools/exit_plan_mode.ts";
export type { ExitPlanModeInput, ExitPlanModeResult, PlanState } from "./src/tools/exit_plan_mode.ts";
export { configTool, KNOWN_SETTINGS, sessionConfig } from "./src/tools/config.ts";
export type { ConfigInput, ConfigResult } from "./src/tools/config.ts";
export {
  currentWorktree,
  enterWorktreeTool,
  WORKTREE_BRANCH_PREFIX,
  WORKTREES_DIR,
} from "./src/tools/enter_worktree.ts";
export type { EnterWorktreeInput, EnterWorktreeResult, WorktreeInfo } from "./src/tools/enter_worktree.ts";
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
} from "./src/tool/interaction.ts";
export { createGlobTool, GLOB_MAX_RESULTS } from "./src/tools/glob.ts";
export type { GlobInput, GlobResult } from "./src/tools/glob.ts";
export { createGrepTool, DEFAULT_HEAD_LIMIT } from "./src/tools/grep/grep.ts";
export type { GrepInput, GrepResult } from "./src/tools/grep/grep.ts";
export { DEFAULT_MATCH_BUDGET, DEFAULT_TIME_BUDGET_MS } from "./src/search/options.ts";
export type { SearchEngine, SearchToolOptions } from "./src/search/options.ts";
export { startWalkHelper, stopWalkHelper, type WalkHelper } from "./src/search/walk_helper.ts";
export { locateRipgrep } from "./src/search/ripgrep.ts";
export {
  createWebFetchTool,
  DEFAULT_WEB_TIMEOUT_MS,
  MAX_SUMMARY_INPUT_CHARS,
} from "./src/tools/web_fetch/web_fetch.ts";
export { WEB_FETCH_CACHE_TTL_MS } from "./src/tools/web_fetch/cache.ts";
export type { WebFetchData, WebFetchInput } from "./src/tools/web_fetch/web_fetch.ts";
export { createWebSearchTool, MAX_SEARCH_RESULTS } from "./src/tools/web_search.ts";
export type { WebSearchData, WebSearchInput } from "./src/tools/web_search.ts";
export type {
  SearchProviderConfig,
  WebFetchSummarizeArgs,
  WebFetchSummarizer,
  WebToolOptions,
} from "./src/web/options.ts";
export type { SearchContext, SearchHit, SearchProvider, SearchRequest } from "./src/web/search_provider.ts";
export { resolveSearchProvider, SEARCH_SETUP_HINT, searchProviderHost } from "./src/web/choose_provider.ts";
export { braveProvider } from "./src/web/brave.ts";
export type { BraveOptions } from "./src/web/brave.ts";
export { searxngProvider } from "./src/web/searxng.ts";
export type { SearxngOptions } from "./src/web/searxng.ts";
export { htmlToMarkdown } from "./src/web/html_to_markdown.ts";
export type { HtmlConversion, HtmlToMarkdownOptions } from "./src/web/html_to_markdown.ts";
export { assertPublicHost, hostMatchesDomain, isPrivateAddress } from "./src/web/net_guard.ts";
export type { HostResolver, NetGuardOptions } from "./src/web/net_guard.ts";
export { DEFAULT_MAX_TURNS, defaultSystemPrompt, runAgent, runAgentToEnd } from "./src/loop/agent_loop.ts";
export type { AgentOptions, AgentResult } from "./src/loop/agent_loop.ts";
export { askModel, createModelClient, OPENAI_BASE_URL, requestTurn } from "./src/loop/client.ts";
export type {
  ChatMessage,
  ModelClient,
  ModelClientOptions,
  TurnRequest,
  TurnResponse,
  WireToolCall,
} from "./src/loop/client.ts";
export { addUsage, emptyUsage, EventQueue } from "./src/loop/events.ts";
export type { AgentEvent, StopReason, Usage } from "./src/loop/events.ts";
export { describeModelError, retryAfterMs, retryDelay, withRetry } from "./src/loop/retry.ts";
export type { EndpointInfo, RetryOptions } from "./src/loop/retry.ts";
export { modelHost, resolveModelConfig, sessionModel } from "./src/loop/model_config.ts";
export type { ModelConfig, ModelConfigResult, ModelFlags } from "./src/loop/model_config.ts";
export { AGENT_TYPES_DIR, GENERAL_PURPOSE, loadAgentTypes, parseAgentType } from "./src/loop/agent_types.ts";
export type { AgentType } from "./src/loop/agent_types.ts";
export { agentTool, DEFAULT_AGENT_MAX_TURNS } from "./src/tools/agent.ts";
export type { AgentToolData, AgentToolOptions } from "./src/tools/agent.ts";
export { attachMcpServers, McpManager, mcpResourceTools } from "./src/mcp/manager.ts";
export type {
  AttachMcpOptions,
  McpManagerOptions,
  McpResourceListing,
  McpResourceSource,
  McpServerStatus,
} from "./src/mcp/manager.ts";
export {
  DEFAULT_MCP_CALL_TIMEOUT_MS,
  DEFAULT_MCP_START_TIMEOUT_MS,
  McpConnection,
} from "./src/mcp/client.ts";
export type {
  McpConnectionOptions,
  McpEvent,
  McpResourceEntry,
  McpResourceTemplateEntry,
  McpServerState,
  ReconnectOptions,
} from "./src/mcp/client.ts";
export { loadMcpConfig, parseMcpConfig } from "./src/mcp/config.ts";
export type {
  McpConfig,
  McpHttpServerConfig,
  McpServerConfig,
  McpStdioServerConfig,
  ParseMcpConfigOptions,
} from "./src/mcp/config.ts";
export {
  adaptMcpTool,
  mcpResultToOutput,
  mcpToolName,
  sideEffectFromAnnotations,
} from "./src/mcp/adapter.ts";
export type { McpCallData, McpToolCaller } from "./src/mcp/adapter.ts";
export {
  createMcpServer,
  MCP_HTTP_PATH,
  serveMcpHttp,
  serveMcpStdio,
  SIDE_EFFECT_ANNOTATIONS,
  toCallToolResult,
} from "./src/mcp/server.ts";
export type { McpHttpOptions, McpHttpServer, McpServerOptions, McpStdioOptions } from "./src/mcp/server.ts";
export { INTERACTIVE_TOOLS, mcpInteraction } from "./src/mcp/interaction.ts";
export { listMcpResourcesTool } from "./src/mcp/list_resources_tool.ts";
export type { ListMcpResourcesInput } from "./src/mcp/list_resources_tool.ts";
export { readMcpResourceTool } from "./src/mcp/read_resource_tool.ts";
export type {
  McpResourcePart,
  ReadMcpResourceData,
  ReadMcpResourceInput,
} from "./src/mcp/read_resource_tool.ts";
export {
  BASH_MAX_OUTPUT_CHARS,
  createBashTool,
  DEFAULT_BASH_TIMEOUT_MS,
  DEFAULT_DRAIN_MS,
  MAX_BASH_TIMEOUT_MS,
} from "./src/tools/bash/bash.ts";
export type { BashBackgroundResult, BashInput, BashOptions, BashResult } from "./src/tools/bash/bash.ts";
export { DEFAULT_TASK_WAIT_MS, findTask, MAX_TASK_WAIT_MS, taskOutputTool } from "./src/tools/task_output.ts";
export type { TaskOutputInput, TaskOutputResult } from "./src/tools/task_output.ts";
export { taskStopTool } from "./src/tools/task_stop.ts";
export type { TaskStopInput, TaskStopResult } from "./src/tools/task_stop.ts";
export { newTaskId, sessionTasks, TASK_STATUSES } from "./src/tasks/types.ts";
export type { TaskHandle, TaskStatus } from "./src/tasks/types.ts";
export { BashTask } from "./src/tasks/bash_task.ts";
export { installShutdownHandlers } from "./src/tasks/shutdown.ts";
export type { ShutdownOptions } from "./src/tasks/shutdown.ts";
export { defaultLedgerDir, LEDGER_SUBDIR, reapOrphanedTasks } from "./src/tasks/ledger.ts";
export type { LedgerEntry, LedgerFile, LedgerOwner, ReapReport } from "./src/tasks/ledger.ts";
export { sessionGroups } from "./src/tasks/tracker.ts";
export type { GroupTracker, TrackerOptions } from "./src/tasks/tracker.ts";
export { DEFAULT_GRACE_MS, TASK_MARKER_ENV, terminateGroups } from "./src/tasks/process_group.ts";
export type { GroupRef, GroupState, TerminateOptions } from "./src/tasks/process_group.ts";
export { sandboxCommand, sandboxProgram, sandboxSelfTest } from "./src/sandbox/sandbox.ts";
export type { CommandLine, SandboxRun, SandboxSettings } from "./src/sandbox/sandbox.ts";
export { bubblewrapArgs } from "./src/sandbox/bubblewrap.ts";
export type { BubblewrapSpec } from "./src/sandbox/bubblewrap.ts";
export { seatbeltProfile } from "./src/sandbox/seatbelt.ts";
export type { SeatbeltSpec } from "./src/sandbox/seatbelt.ts";

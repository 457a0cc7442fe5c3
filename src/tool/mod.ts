/**
 * The tool layer beyond the root entry: adapters from AI SDK and LangChain
 * tools, the JSON Schema derived from a tool's Zod input, output truncation,
 * ready-made middleware, the hook event types, the runner's limits, and
 * {@link describeError}, the mapping from any thrown value to a result code.
 *
 * @example Deny a tool with middleware
 * ```ts
 * import assert from "node:assert/strict";
 * import { z } from "zod";
 * import { defineTool, runTool, ToolRegistry } from "../../mod.ts";
 * import { denyListMiddleware } from "./mod.ts";
 * const ping = defineTool({
 *   name: "Ping",
 *   description: "Answers pong",
 *   sideEffect: "None",
 *   input: z.strictObject({}),
 *   execute: () => Promise.resolve("pong"),
 * });
 * const result = await runTool(new ToolRegistry([ping]), { name: "Ping", input: {} }, {
 *   middleware: [denyListMiddleware(["Ping"])],
 * });
 * assert.equal(result.error?.code, "permission_denied");
 * ```
 *
 * @module
 */
export { describeError } from "../errors.ts";
export { fromAiSdkTools, fromLangChainTools, TOOL_ALIASES } from "./registry.ts";
export type { AiSdkToolLike, LangChainToolLike, LazyTool } from "./registry.ts";
export { toJsonSchema } from "./json_schema.ts";
export type { JsonSchema } from "./json_schema.ts";
export { DEFAULT_MAX_OUTPUT_CHARS, truncateOutput } from "./truncate.ts";
export type { Truncation } from "./truncate.ts";
export { DEFAULT_TOOL_TIMEOUT_MS } from "./run_tool.ts";
export { denyListMiddleware, loggingMiddleware } from "./middleware.ts";
export type {
  PostToolUseAnswer,
  PostToolUseEvent,
  PostToolUseHook,
  PreToolUseAnswer,
  PreToolUseEvent,
  PreToolUseHook,
} from "./hooks.ts";

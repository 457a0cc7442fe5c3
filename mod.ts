/**
 * Paddock: a Deno-native sandboxed agent runtime. Tools are values
 * (`defineTool`), a registry turns them into OpenAI-format definitions, and
 * one runner (`runTool`) validates, decides permissions, executes under a
 * signal and timeout, and truncates. `createRuntime` binds the built-in tools,
 * a session and the permission settings together; `runAgent` drives a model
 * through them.
 *
 * This entry holds what most programs need. The rest is on subpaths:
 * `@paddock/paddock/tools` (every built-in tool), `/tool` (registry adapters,
 * hook types, middleware, schemas), `/permissions`, `/session`, `/runtime`,
 * `/loop`, `/mcp`, `/sandbox`, `/tasks`, `/web`, `/files` and `/cli`.
 *
 * @example Define a tool and run one call
 * ```ts
 * import assert from "node:assert/strict";
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
 * assert.equal(result.text, "Hello, Ada");
 * ```
 *
 * @module
 */

// errors users catch, and the codes results carry
export {
  AbortedError,
  ConflictError,
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

// defining tools
export { isReadOnly, SIDE_EFFECTS } from "./src/permissions/side_effect.ts";
export type { SideEffect } from "./src/permissions/side_effect.ts";
export { defineTool } from "./src/tool/define_tool.ts";
export type { ImageContent, Tool, ToolContext, ToolOutput, ToolSpec } from "./src/tool/define_tool.ts";
export { ToolRegistry } from "./src/tool/registry.ts";
export type { ToolDefinition, ViewFilter } from "./src/tool/registry.ts";

// running calls
export { executeToolCalls, runTool } from "./src/tool/run_tool.ts";
export type { RunOptions } from "./src/tool/run_tool.ts";
export type { ToolCallRequest, ToolCallResult, ToolEvent } from "./src/tool/tool_call.ts";
export type { ApprovalAnswer } from "./src/permissions/decide.ts";
export type { ApprovalRequest, Approver, Hooks, ToolMiddleware } from "./src/tool/hooks.ts";

// sessions, permissions, runtimes and the built-in tools
export { Session } from "./src/session/session.ts";
export type { SessionEvent, SessionOptions } from "./src/session/session.ts";
export { CONFIRMATION_PRESETS, PERMISSION_MODES } from "./src/permissions/modes.ts";
export type { ConfirmationPreset, PermissionMode } from "./src/permissions/modes.ts";
export type { PermissionRules } from "./src/permissions/rules.ts";
export { createRuntime } from "./src/runtime/runtime.ts";
export type { Runtime, RuntimeOptions } from "./src/runtime/runtime.ts";
export { builtinTools } from "./src/tools/mod.ts";
export type { BuiltinToolOptions } from "./src/tools/mod.ts";

// the agent loop
export { runAgent, runAgentToEnd } from "./src/loop/agent_loop.ts";
export type { AgentOptions, AgentResult } from "./src/loop/agent_loop.ts";
export { createModelClient } from "./src/loop/client.ts";
export type { ChatMessage, ModelClient, ModelClientOptions } from "./src/loop/client.ts";
export type { AgentEvent, StopReason, Usage } from "./src/loop/events.ts";

/**
 * The shapes of one call as it crosses the runner: the request, the result
 * and the progress events. Both the runner (`run_tool.ts`) and the hook and
 * middleware types (`hooks.ts`) import them from here.
 *
 * @module
 */
import type { ErrorCode } from "../errors.ts";
import type { ImageContent } from "./define_tool.ts";

/**
 * One call: a tool name (or alias) and its input (an object or a JSON string).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { builtinTools, runTool, type ToolCallRequest, ToolRegistry } from "../../mod.ts";
 * const call: ToolCallRequest = { id: "call_1", name: "TodoWrite", input: '{"todos": []}' };
 * const r = await runTool(new ToolRegistry(builtinTools()), call);
 * assert.equal(r.id, "call_1");
 * ```
 */
export interface ToolCallRequest {
  /** Tool name or alias. */
  name: string;
  /** The arguments: an object, or the raw JSON string a model sent. */
  input: unknown;
  /** Call id (the model's `tool_call_id`). Default: a random id. */
  id?: string;
}

/**
 * The result of one call: text for the model and a structured object.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { builtinTools, runTool, type ToolCallResult, ToolRegistry } from "../../mod.ts";
 * const r: ToolCallResult = await runTool(new ToolRegistry(builtinTools()), { name: "Nope", input: {} });
 * assert.equal(r.ok, false);
 * assert.equal(r.error?.code, "tool_not_found");
 * assert.ok(r.text.startsWith("Error: "));
 * ```
 */
export interface ToolCallResult<S = unknown> {
  /** Call id. */
  id: string;
  /** Canonical tool name (the name asked for when unknown). */
  tool: string;
  /** Whether the call succeeded. */
  ok: boolean;
  /** Text for the model; starts with `Error: ` when the call failed. */
  text: string;
  /** The tool's structured result. */
  data?: S;
  /** Images for models that take them. */
  images?: ImageContent[];
  /** Set when the call failed. */
  error?: { code: ErrorCode; message: string };
  /** Set when the text was cut. */
  truncated?: { originalChars: number; fullOutputPath: string };
  /** Wall time of the call (ms). */
  elapsedMs: number;
  /** The input that ran (after hooks), when it parsed. */
  input?: Record<string, unknown>;
}

/**
 * Progress events of a call.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { builtinTools, runTool, type ToolEvent, ToolRegistry } from "../../mod.ts";
 * const events: ToolEvent[] = [];
 * await runTool(new ToolRegistry(builtinTools()), { name: "TodoWrite", input: { todos: [] } }, {
 *   onEvent: (e) => events.push(e),
 * });
 * assert.deepEqual(events.map((e) => e.type), ["tool_start", "tool_end"]);
 * ```
 */
export type ToolEvent =
  | { type: "tool_start"; callId: string; tool: string; input: unknown; summary: string }
  | { type: "tool_output"; callId: string; tool: string; chunk: string }
  | {
    type: "tool_end";
    callId: string;
    tool: string;
    ok: boolean;
    code?: ErrorCode;
    elapsedMs: number;
    result: ToolCallResult;
  };

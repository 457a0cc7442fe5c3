/**
 * Hook and middleware types of the runner.
 *
 * @module
 */
import type { ApprovalAnswer } from "../permissions/decide.ts";
import type { SideEffect } from "../permissions/side_effect.ts";
import type { Session } from "../session/session.ts";
import type { ToolCallRequest, ToolCallResult } from "./tool_call.ts";

// the answer is read by the permission decision, the events belong to the call; importers find them here too
export type { ApprovalAnswer } from "../permissions/decide.ts";
export type { ToolEvent } from "./tool_call.ts";

/**
 * What a PreToolUse hook sees.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { builtinTools, runTool, ToolRegistry } from "../../mod.ts";
 * import type { PreToolUseEvent } from "./hooks.ts";
 * const seen: PreToolUseEvent[] = [];
 * await runTool(new ToolRegistry(builtinTools()), { name: "TodoWrite", input: { todos: [] } }, {
 *   hooks: { preToolUse: [(e) => void seen.push(e)] },
 * });
 * assert.equal(seen[0].tool, "TodoWrite");
 * assert.deepEqual(seen[0].input, { todos: [] });
 * ```
 */
export interface PreToolUseEvent {
  /** Canonical tool name. */
  tool: string;
  /** The validated input. */
  input: Record<string, unknown>;
  /** The call id. */
  callId: string;
  /** The session. */
  session: Session;
}

/**
 * What a PreToolUse hook may answer.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { builtinTools, runTool, ToolRegistry } from "../../mod.ts";
 * import type { PreToolUseAnswer } from "./hooks.ts";
 * const note: PreToolUseAnswer = { additionalContext: "Keep the list short" };
 * const r = await runTool(new ToolRegistry(builtinTools()), { name: "TodoWrite", input: { todos: [] } }, {
 *   hooks: { preToolUse: [() => note] },
 * });
 * assert.match(r.text, /Keep the list short/);
 * ```
 */
export interface PreToolUseAnswer {
  /** `deny` refuses the call; `allow` skips the approver (deny rules and plan mode still apply); `ask` forces it. */
  decision?: "allow" | "deny" | "ask";
  /** Why, shown to the model on deny. */
  reason?: string;
  /** A replacement input (validated again). */
  updatedInput?: Record<string, unknown>;
  /** Text appended to the result for the model. */
  additionalContext?: string;
}

/**
 * A PreToolUse hook.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { createRuntime } from "../../mod.ts";
 * import type { PreToolUseHook } from "./hooks.ts";
 * // every Bash command runs with `set -e`
 * const strictBash: PreToolUseHook = (e) =>
 *   e.tool === "Bash"
 *     ? { decision: "allow", updatedInput: { ...e.input, command: `set -e; ${e.input.command}` } }
 *     : undefined;
 * await using rt = createRuntime({
 *   roots: [await Deno.realPath(Deno.cwd())],
 *   hooks: { preToolUse: [strictBash] },
 * });
 * const r = await rt.run("Bash", { command: "false; echo after" });
 * assert.ok(!r.text.includes("after"));
 * ```
 */
export type PreToolUseHook = (
  event: PreToolUseEvent,
) => PreToolUseAnswer | void | Promise<PreToolUseAnswer | void>;

/**
 * What PostToolUse and PostToolUseFailure hooks see.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { builtinTools, runTool, ToolRegistry } from "../../mod.ts";
 * import type { PostToolUseEvent } from "./hooks.ts";
 * const seen: PostToolUseEvent[] = [];
 * await runTool(new ToolRegistry(builtinTools()), { name: "TodoWrite", input: { todos: [] } }, {
 *   hooks: { postToolUse: [(e) => void seen.push(e)] },
 * });
 * assert.equal(seen[0].result.ok, true);
 * ```
 */
export interface PostToolUseEvent extends PreToolUseEvent {
  /** The result so far. */
  result: ToolCallResult;
}

/**
 * What a post hook may answer.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { builtinTools, runTool, ToolRegistry } from "../../mod.ts";
 * import type { PostToolUseAnswer } from "./hooks.ts";
 * const reminder: PostToolUseAnswer = { additionalContext: "Run the tests after editing" };
 * const r = await runTool(new ToolRegistry(builtinTools()), { name: "TodoWrite", input: { todos: [] } }, {
 *   hooks: { postToolUse: [() => reminder] },
 * });
 * assert.match(r.text, /Run the tests after editing/);
 * ```
 */
export interface PostToolUseAnswer {
  /** Text appended to the result for the model. */
  additionalContext?: string;
}

/**
 * A PostToolUse or PostToolUseFailure hook.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { builtinTools, runTool, ToolRegistry } from "../../mod.ts";
 * import type { PostToolUseHook } from "./hooks.ts";
 * const failures: string[] = [];
 * const logFailure: PostToolUseHook = (e) => void failures.push(`${e.tool}: ${e.result.error?.code}`);
 * await runTool(new ToolRegistry(builtinTools()), { name: "Read", input: { file_path: "relative.txt" } }, {
 *   hooks: { postToolUseFailure: [logFailure] },
 * });
 * assert.deepEqual(failures, ["Read: invalid_input"]);
 * ```
 */
export type PostToolUseHook = (
  event: PostToolUseEvent,
) => PostToolUseAnswer | void | Promise<PostToolUseAnswer | void>;

/**
 * Hooks by event.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { createRuntime, type Hooks } from "../../mod.ts";
 * const hooks: Hooks = {
 *   preToolUse: [(e) => e.tool === "Bash" ? { decision: "deny", reason: "No shell here" } : undefined],
 * };
 * await using rt = createRuntime({ roots: [Deno.cwd()], hooks, approver: () => Promise.resolve(true) });
 * const r = await rt.run("Bash", { command: "ls" });
 * assert.equal(r.error?.code, "permission_denied");
 * assert.match(r.text, /No shell here/);
 * ```
 */
export interface Hooks {
  /** Before a validated call runs. */
  preToolUse?: PreToolUseHook[];
  /** After a call succeeded. */
  postToolUse?: PostToolUseHook[];
  /** After a call failed. */
  postToolUseFailure?: PostToolUseHook[];
}

/**
 * What the approver is asked.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { type ApprovalRequest, createRuntime } from "../../mod.ts";
 * const asked: ApprovalRequest[] = [];
 * await using rt = createRuntime({
 *   roots: [await Deno.realPath(await Deno.makeTempDir())],
 *   approver: (request) => {
 *     asked.push(request);
 *     return Promise.resolve(false);
 *   },
 * });
 * await rt.run("Write", { file_path: `${rt.session.roots[0]}/a.txt`, content: "x" });
 * assert.equal(asked[0].tool, "Write");
 * assert.equal(asked[0].sideEffect, "Mutating");
 * await Deno.remove(rt.session.roots[0], { recursive: true });
 * ```
 */
export interface ApprovalRequest {
  /** Canonical tool name. */
  tool: string;
  /** Side-effect class. */
  sideEffect: SideEffect;
  /** The input. */
  input: Record<string, unknown>;
  /** A one-line summary of the call. */
  summary: string;
  /** Why approval is needed. */
  reason: string;
  /** The session. */
  session: Session;
}

/**
 * Decides calls that need a person's confirmation.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { type Approver, createRuntime } from "../../mod.ts";
 * // allow edits, refuse everything else that asks
 * const approver: Approver = (request) =>
 *   Promise.resolve(
 *     request.sideEffect === "Mutating" ? true : { behavior: "deny", reason: "Only edits are allowed" },
 *   );
 * await using rt = createRuntime({ roots: [await Deno.realPath(await Deno.makeTempDir())], approver });
 * const root = rt.session.roots[0];
 * assert.ok((await rt.run("Write", { file_path: `${root}/a.txt`, content: "x" })).ok);
 * assert.equal((await rt.run("Bash", { command: "ls" })).error?.code, "permission_denied");
 * await Deno.remove(root, { recursive: true });
 * ```
 */
export type Approver = (request: ApprovalRequest, signal: AbortSignal) => Promise<ApprovalAnswer>;

/**
 * Wraps the runner: call `next` to go on, or answer without it.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { builtinTools, runTool, type ToolMiddleware, ToolRegistry } from "../../mod.ts";
 * const calls: string[] = [];
 * const record: ToolMiddleware = async (call, next) => {
 *   calls.push(call.name);
 *   return await next(call);
 * };
 * await runTool(new ToolRegistry(builtinTools()), { name: "TodoWrite", input: { todos: [] } }, {
 *   middleware: [record],
 * });
 * assert.deepEqual(calls, ["TodoWrite"]);
 * ```
 */
export type ToolMiddleware = (
  call: ToolCallRequest,
  next: (call: ToolCallRequest) => Promise<ToolCallResult>,
) => Promise<ToolCallResult>;

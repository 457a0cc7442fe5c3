/**
 * Hook and middleware types of the runner.
 *
 * @module
 */
import type { ErrorCode } from "../errors.ts";
import type { SideEffect } from "./define_tool.ts";
import type { Session } from "../session/session.ts";
import type { ToolCallRequest, ToolCallResult } from "./run_tool.ts";

/** What a PreToolUse hook sees. */
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

/** What a PreToolUse hook may answer. */
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

/** A PreToolUse hook. */
export type PreToolUseHook = (
  event: PreToolUseEvent,
) => PreToolUseAnswer | void | Promise<PreToolUseAnswer | void>;

/** What PostToolUse and PostToolUseFailure hooks see. */
export interface PostToolUseEvent extends PreToolUseEvent {
  /** The result so far. */
  result: ToolCallResult;
}

/** What a post hook may answer. */
export interface PostToolUseAnswer {
  /** Text appended to the result for the model. */
  additionalContext?: string;
}

/** A PostToolUse or PostToolUseFailure hook. */
export type PostToolUseHook = (
  event: PostToolUseEvent,
) => PostToolUseAnswer | void | Promise<PostToolUseAnswer | void>;

/** Hooks by event. */
export interface Hooks {
  /** Before a validated call runs. */
  preToolUse?: PreToolUseHook[];
  /** After a call succeeded. */
  postToolUse?: PostToolUseHook[];
  /** After a call failed. */
  postToolUseFailure?: PostToolUseHook[];
}

/** What the approver is asked. */
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

/** The approver's answer. */
export type ApprovalAnswer = boolean | { behavior: "allow" | "deny"; reason?: string };

/** Decides calls that need a person's confirmation. */
export type Approver = (request: ApprovalRequest, signal: AbortSignal) => Promise<ApprovalAnswer>;

/** Progress events of a call. */
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

/** Wraps the runner: call `next` to go on, or answer without it. */
export type ToolMiddleware = (
  call: ToolCallRequest,
  next: (call: ToolCallRequest) => Promise<ToolCallResult>,
) => Promise<ToolCallResult>;

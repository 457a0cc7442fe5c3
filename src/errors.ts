/**
 * Typed errors. Inside the library these are thrown; at the model boundary
 * `runTool` turns them into results whose text starts with `Error: `.
 *
 * @module
 */

/** Codes a failed tool call carries in its structured result. */
export const ERROR_CODES = [
  "invalid_input",
  "permission_denied",
  "not_found",
  "tool_not_found",
  "conflict",
  "timeout",
  "aborted",
  "execution_failed",
  "unavailable",
] as const;

/** One of {@link ERROR_CODES}. */
export type ErrorCode = typeof ERROR_CODES[number];

/**
 * Base class of every error Paddock throws on purpose.
 *
 * @example
 * ```ts
 * import { PaddockError } from "./errors.ts";
 * const e = new PaddockError("execution_failed", "Disk full");
 * console.assert(e.code === "execution_failed");
 * ```
 */
export class PaddockError extends Error {
  /** Machine-readable code. */
  readonly code: ErrorCode;
  /** Creates an error with a code and a message. */
  constructor(code: ErrorCode, message: string, options?: ErrorOptions) {
    super(message, options);
    this.code = code;
    this.name = "PaddockError";
  }
}

/** The input did not match the tool's schema or contract. */
export class InvalidInputError extends PaddockError {
  /** Creates the error. */
  constructor(message: string, options?: ErrorOptions) {
    super("invalid_input", message, options);
    this.name = "InvalidInputError";
  }
}

/** A permission rule, mode, hook, approver or Deno itself refused the call. */
export class PermissionDeniedError extends PaddockError {
  /** Creates the error. */
  constructor(message: string, options?: ErrorOptions) {
    super("permission_denied", message, options);
    this.name = "PermissionDeniedError";
  }
}

/** A file, task, agent or resource does not exist. */
export class NotFoundError extends PaddockError {
  /** Creates the error. */
  constructor(message: string, options?: ErrorOptions) {
    super("not_found", message, options);
    this.name = "NotFoundError";
  }
}

/** No tool is registered under the requested name. */
export class ToolNotFoundError extends PaddockError {
  /** The name that was asked for. */
  readonly toolName: string;
  /** Registered names closest to the one asked for. */
  readonly suggestions: readonly string[];
  /** Creates the error. */
  constructor(toolName: string, suggestions: readonly string[]) {
    const hint = suggestions.length > 0
      ? `: did you mean ${suggestions.map((s) => `"${s}"`).join(", ")}?`
      : "";
    super("tool_not_found", `No tool named "${toolName}"${hint}`);
    this.name = "ToolNotFoundError";
    this.toolName = toolName;
    this.suggestions = suggestions;
  }
}

/** The state on disk is not what the caller expects (for example a file changed since it was read). */
export class ConflictError extends PaddockError {
  /** Creates the error. */
  constructor(message: string, options?: ErrorOptions) {
    super("conflict", message, options);
    this.name = "ConflictError";
  }
}

/** The call ran past its time limit. */
export class ToolTimeoutError extends PaddockError {
  /** Creates the error. */
  constructor(message: string, options?: ErrorOptions) {
    super("timeout", message, options);
    this.name = "ToolTimeoutError";
  }
}

/** The call was aborted through its signal. */
export class AbortedError extends PaddockError {
  /** Creates the error. */
  constructor(message: string, options?: ErrorOptions) {
    super("aborted", message, options);
    this.name = "AbortedError";
  }
}

/** Something needed (a program, a handler, a provider) is not available. */
export class UnavailableError extends PaddockError {
  /** Creates the error. */
  constructor(message: string, options?: ErrorOptions) {
    super("unavailable", message, options);
    this.name = "UnavailableError";
  }
}

/**
 * Maps any thrown value to a code and a message for the model.
 *
 * @example
 * ```ts
 * import { describeError, NotFoundError } from "./errors.ts";
 * console.assert(describeError(new NotFoundError("gone")).code === "not_found");
 * ```
 */
export function describeError(err: unknown): { code: ErrorCode; message: string } {
  if (err instanceof PaddockError) return { code: err.code, message: err.message };
  if (err instanceof Deno.errors.NotCapable || err instanceof Deno.errors.PermissionDenied) {
    return { code: "permission_denied", message: `Deno refused: ${(err as Error).message}` };
  }
  if (err instanceof Deno.errors.NotFound) {
    return { code: "not_found", message: (err as Error).message };
  }
  if (err instanceof Error) return { code: "execution_failed", message: err.message || err.name };
  return { code: "execution_failed", message: String(err) };
}

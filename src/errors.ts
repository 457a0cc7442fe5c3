/**
 * Typed errors. Inside the library these are thrown; at the model boundary
 * `runTool` turns them into results whose text starts with `Error: `.
 *
 * @module
 */

/**
 * Codes a failed tool call carries in its structured result.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { ERROR_CODES } from "./errors.ts";
 * assert.ok(ERROR_CODES.includes("permission_denied"));
 * ```
 */
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

/**
 * One of {@link ERROR_CODES}.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { describeError, type ErrorCode, NotFoundError } from "./errors.ts";
 * const code: ErrorCode = describeError(new NotFoundError("gone")).code;
 * assert.equal(code, "not_found");
 * ```
 */
export type ErrorCode = typeof ERROR_CODES[number];

/**
 * Base class of every error Paddock throws on purpose.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { PaddockError } from "./errors.ts";
 * const e = new PaddockError("execution_failed", "Disk full");
 * assert.equal(e.code, "execution_failed");
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

/**
 * The input did not match the tool's schema or contract.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { InvalidInputError, PaddockError } from "./errors.ts";
 * const e = new InvalidInputError('"limit" must be positive');
 * assert.ok(e instanceof PaddockError);
 * assert.equal(e.code, "invalid_input");
 * ```
 */
export class InvalidInputError extends PaddockError {
  /** Creates the error. */
  constructor(message: string, options?: ErrorOptions) {
    super("invalid_input", message, options);
    this.name = "InvalidInputError";
  }
}

/**
 * A permission rule, mode, hook, approver or Deno itself refused the call.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { PermissionDeniedError } from "./errors.ts";
 * const e = new PermissionDeniedError('Cannot write "/etc/hosts": outside the workspace "/w"');
 * assert.equal(e.code, "permission_denied");
 * assert.equal(e.name, "PermissionDeniedError");
 * ```
 */
export class PermissionDeniedError extends PaddockError {
  /** Creates the error. */
  constructor(message: string, options?: ErrorOptions) {
    super("permission_denied", message, options);
    this.name = "PermissionDeniedError";
  }
}

/**
 * A file, task, agent or resource does not exist.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { NotFoundError } from "./errors.ts";
 * assert.equal(new NotFoundError('File "/w/a.txt" does not exist').code, "not_found");
 * ```
 */
export class NotFoundError extends PaddockError {
  /** Creates the error. */
  constructor(message: string, options?: ErrorOptions) {
    super("not_found", message, options);
    this.name = "NotFoundError";
  }
}

/**
 * No tool is registered under the requested name.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { ToolNotFoundError } from "./errors.ts";
 * const e = new ToolNotFoundError("Raed", ["Read"]);
 * assert.equal(e.message, 'No tool named "Raed": did you mean "Read"?');
 * assert.deepEqual(e.suggestions, ["Read"]);
 * ```
 */
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

/**
 * The state on disk is not what the caller expects (for example a file changed since it was read).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { ConflictError } from "./errors.ts";
 * assert.equal(
 *   new ConflictError('File "/w/a.txt" changed since it was read: read it again').code,
 *   "conflict",
 * );
 * ```
 */
export class ConflictError extends PaddockError {
  /** Creates the error. */
  constructor(message: string, options?: ErrorOptions) {
    super("conflict", message, options);
    this.name = "ConflictError";
  }
}

/**
 * The call ran past its time limit.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { ToolTimeoutError } from "./errors.ts";
 * assert.equal(new ToolTimeoutError("Bash timed out after 120000 ms").code, "timeout");
 * ```
 */
export class ToolTimeoutError extends PaddockError {
  /** Creates the error. */
  constructor(message: string, options?: ErrorOptions) {
    super("timeout", message, options);
    this.name = "ToolTimeoutError";
  }
}

/**
 * The call was aborted through its signal.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { AbortedError } from "./errors.ts";
 * assert.equal(new AbortedError("The call was aborted").code, "aborted");
 * ```
 */
export class AbortedError extends PaddockError {
  /** Creates the error. */
  constructor(message: string, options?: ErrorOptions) {
    super("aborted", message, options);
    this.name = "AbortedError";
  }
}

/**
 * Something needed (a program, a handler, a provider) is not available.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { UnavailableError } from "./errors.ts";
 * assert.equal(
 *   new UnavailableError('Cannot start the sandbox: "bwrap" is not installed').code,
 *   "unavailable",
 * );
 * ```
 */
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
 * import assert from "node:assert/strict";
 * import { describeError, NotFoundError } from "./errors.ts";
 * assert.equal(describeError(new NotFoundError("gone")).code, "not_found");
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

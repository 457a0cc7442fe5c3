/**
 * The CLI's permission approver: a y/n prompt on a terminal. A process whose
 * stdin is not a terminal gets no approver, so it never hangs on a prompt.
 *
 * @module
 */
import type { Approver } from "../tool/hooks.ts";
import type { CliIo } from "./command.ts";
import { readTerminalLine } from "./interactive.ts";

/**
 * The terminal approver, or undefined when stdin is not a terminal.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { terminalApprover } from "./approver.ts";
 * const io = { isTerminal: false } as never;
 * assert.ok(terminalApprover(io) === undefined);
 * ```
 */
export function terminalApprover(io: CliIo): Approver | undefined {
  if (!io.isTerminal) return undefined;
  return async (req, signal) => {
    io.err(`\nAllow ${req.tool} (${req.sideEffect})? ${req.summary}\n  ${req.reason}\n  [y]es / [n]o: `);
    const answer = (await readTerminalLine(io.stdin, signal))?.trim().toLowerCase();
    return answer === "y" || answer === "yes";
  };
}

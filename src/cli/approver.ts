/**
 * The CLI's permission approver: a y/n prompt on a terminal. A process whose
 * stdin is not a terminal gets no approver, so it never hangs on a prompt.
 *
 * @module
 */
import type { Approver } from "../registry/hooks.ts";
import type { CliIo } from "./command.ts";

/**
 * Reads one line from a stream (up to a newline), leaving the rest unread.
 */
export async function readLine(
  stdin: ReadableStream<Uint8Array>,
  signal?: AbortSignal,
): Promise<string | null> {
  const reader = stdin.getReader();
  const dec = new TextDecoder();
  let line = "";
  const onAbort = () => reader.cancel().catch(() => {});
  signal?.addEventListener("abort", onAbort, { once: true });
  try {
    for (;;) {
      const { value, done } = await reader.read();
      if (done) return line === "" ? null : line;
      line += dec.decode(value, { stream: true });
      const nl = line.indexOf("\n");
      if (nl >= 0) return line.slice(0, nl).replace(/\r$/, "");
    }
  } finally {
    signal?.removeEventListener("abort", onAbort);
    reader.releaseLock();
  }
}

/**
 * The terminal approver, or undefined when stdin is not a terminal.
 *
 * @example
 * ```ts
 * import { terminalApprover } from "./approver.ts";
 * const io = { isTerminal: false } as never;
 * console.assert(terminalApprover(io) === undefined);
 * ```
 */
export function terminalApprover(io: CliIo): Approver | undefined {
  if (!io.isTerminal) return undefined;
  return async (req, signal) => {
    io.err(`\nAllow ${req.tool} (${req.sideEffect})? ${req.summary}\n  ${req.reason}\n  [y]es / [n]o: `);
    const answer = (await readLine(io.stdin, signal))?.trim().toLowerCase();
    return answer === "y" || answer === "yes";
  };
}

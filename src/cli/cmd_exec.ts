/**
 * `paddock exec`: runs tool calls through the full pipeline, one from the
 * arguments or many as JSON lines from stdin in one session.
 *
 * @module
 */
import type { ToolCallResult } from "../tool/run_tool.ts";
import { terminalApprover } from "./approver.ts";
import { type CliCommand, type CliIo, UsageError } from "./command.ts";
import { parseFlags } from "./flags.ts";
import { startRuntime } from "./options.ts";

/** Exit code after SIGINT or SIGTERM (the shell's 128 + SIGINT). */
const INTERRUPTED_EXIT = 130;

/** The `exec` subcommand. */
export const command: CliCommand = {
  async run(args, io) {
    const { values, positionals } = await parseFlags("exec", args);
    const [target, inputText, ...more] = positionals;
    if (!target) throw new UsageError("name a tool, or '-' to read JSON lines from stdin");
    if (more.length) {
      throw new UsageError(`unexpected argument "${more[0]}": quote the JSON input as one argument`);
    }
    if (target === "-" && inputText !== undefined) {
      throw new UsageError("exec - takes its calls from stdin, not arguments");
    }
    const timeoutMs = values.timeout === undefined ? undefined : Number(values.timeout);
    if (timeoutMs !== undefined && (!Number.isInteger(timeoutMs) || timeoutMs < 0)) {
      throw new UsageError(`--timeout must be a whole number of milliseconds, got "${values.timeout}"`);
    }
    const { runtime } = await startRuntime(values, io, { approver: terminalApprover(io) });
    try {
      if (target !== "-") {
        const result = await runtime.run(target, inputText ?? "{}", { signal: io.signal, timeoutMs });
        if (values.json) io.out(JSON.stringify(publicResult(result)) + "\n");
        else (result.ok ? io.out : io.err)(result.text + "\n");
        if (io.signal.aborted) return INTERRUPTED_EXIT;
        return result.ok ? 0 : 1;
      }
      let failed = false;
      let lineNo = 0;
      for await (const line of lines(io.stdin, io.signal)) {
        lineNo++;
        if (line.trim() === "") continue;
        if (io.signal.aborted) break;
        const call = parseCallLine(line, lineNo);
        if ("error" in call) {
          failed = true;
          io.out(errorLine(lineNo, "invalid_input", call.error));
          continue;
        }
        // one call that throws (a bug, not a tool error: those are results) never ends the batch
        let result: ToolCallResult;
        try {
          result = await runtime.run(call.tool, call.input, { signal: io.signal, timeoutMs });
        } catch (err) {
          if (io.signal.aborted) break;
          failed = true;
          io.out(errorLine(lineNo, "execution_failed", err instanceof Error ? err.message : String(err)));
          continue;
        }
        failed ||= !result.ok;
        io.out(JSON.stringify({ line: lineNo, ...publicResult(result) }) + "\n");
      }
      if (io.signal.aborted) return INTERRUPTED_EXIT;
      return failed ? 1 : 0;
    } finally {
      await runtime.close();
    }
  },
};

function errorLine(line: number, code: string, message: string): string {
  return JSON.stringify({ line, ok: false, text: `Error: ${message}`, error: { code, message } }) + "\n";
}

function publicResult(r: ToolCallResult): Record<string, unknown> {
  const { input: _input, ...rest } = r;
  return rest;
}

function parseCallLine(line: string, n: number): { tool: string; input: unknown } | { error: string } {
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch (err) {
    return { error: `Line ${n} is not valid JSON: ${(err as Error).message}` };
  }
  const rec = value as Record<string, unknown>;
  if (rec === null || typeof rec !== "object" || typeof rec.tool !== "string") {
    return { error: `Line ${n} must be an object {"tool": "<name>", "input": {...}}` };
  }
  return { tool: rec.tool, input: rec.input ?? {} };
}

/** Lines of a stream; ends early (without the rest) when `signal` aborts, even while waiting on input. */
async function* lines(stream: CliIo["stdin"], signal: AbortSignal): AsyncGenerator<string> {
  const dec = new TextDecoder();
  const reader = stream.getReader();
  const stop = () => reader.cancel().catch(() => {});
  signal.addEventListener("abort", stop, { once: true });
  let buf = "";
  try {
    for (;;) {
      if (signal.aborted) return;
      const { value, done } = await reader.read();
      if (done) break;
      buf += dec.decode(value, { stream: true });
      let nl;
      while ((nl = buf.indexOf("\n")) >= 0) {
        yield buf.slice(0, nl);
        buf = buf.slice(nl + 1);
      }
    }
    buf += dec.decode();
    if (buf && !signal.aborted) yield buf;
  } finally {
    signal.removeEventListener("abort", stop);
    reader.releaseLock();
  }
}

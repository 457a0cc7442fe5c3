/**
 * The foreground half of the Bash tool: run one command to its end (or its
 * timeout or abort), drain the pipes for a bounded time, apply the final
 * working directory, and compose the result text.
 *
 * @module
 */
import { UnavailableError } from "../../errors.ts";
import type { ToolContext } from "../../tool/define_tool.ts";
import { OutputSink } from "../../tasks/output_sink.ts";
import { DEFAULT_GRACE_MS } from "../../tasks/process_group.ts";
import { spawnShell } from "../../tasks/shell.ts";
import {
  type BashInput,
  type BashOptions,
  type BashResult,
  DEFAULT_BASH_TIMEOUT_MS,
  DEFAULT_DRAIN_MS,
} from "./options.ts";
import { finalCwd } from "./cwd.ts";

/** Spawns through `spawn`, turning a missing program or cwd into an {@link UnavailableError}; closes `sink` on failure. */
export function startShell<T>(spawn: () => T, shell: string, sink: OutputSink): T {
  try {
    return spawn();
  } catch (err) {
    sink.close();
    if (err instanceof Deno.errors.NotFound) {
      throw new UnavailableError(
        `Cannot start "${shell}": ${err.message}: check that it is installed and on PATH and that the working directory exists`,
        { cause: err },
      );
    }
    throw err;
  }
}

/** Runs one command in the foreground and returns the result for the model. */
export async function runForeground(
  input: BashInput,
  ctx: ToolContext,
  o: Omit<Parameters<typeof spawnShell>[0], "sink" | "background"> & {
    notes: string[];
    options: BashOptions;
    sandboxed: boolean;
  },
): Promise<{ text: string; data: BashResult }> {
  const timeoutMs = input.timeout ?? o.options.defaultTimeoutMs ?? DEFAULT_BASH_TIMEOUT_MS;
  const graceMs = o.options.graceMs ?? DEFAULT_GRACE_MS;
  const cwdFile = ctx.session.outputPath(`.cwd-${o.id}`);
  Deno.writeTextFileSync(cwdFile, "");
  const sink = new OutputSink({ spillPath: () => ctx.session.outputPath(`bash-${o.id}.log`) });
  const proc = startShell(
    () => spawnShell({ ...o, cwdFile, sink, onChunk: ctx.onOutput, background: false }),
    o.shell!,
    sink,
  );
  let stopped: "timeout" | "aborted" | undefined;
  let stopping: Promise<void> | undefined;
  const stop = (why: "timeout" | "aborted") => {
    if (stopped) return;
    stopped = why;
    stopping = proc.stop();
  };
  const timer = setTimeout(() => stop("timeout"), timeoutMs);
  const onAbort = () => stop("aborted");
  if (ctx.signal.aborted) onAbort();
  ctx.signal.addEventListener("abort", onAbort, { once: true });
  let status: Deno.CommandStatus;
  try {
    status = await proc.status;
    if (!stopped) {
      let timer2: ReturnType<typeof setTimeout> | undefined;
      await Promise.race([
        proc.pumped,
        new Promise((r) => (timer2 = setTimeout(r, o.options.drainMs ?? DEFAULT_DRAIN_MS))),
      ]);
      clearTimeout(timer2);
    }
    if (stopping) await stopping;
  } finally {
    clearTimeout(timer);
    ctx.signal.removeEventListener("abort", onAbort);
  }
  const drained = proc.isDrained();
  const leftBehind = proc.leftBehind();
  if (!drained) {
    // only a process that escaped every containment (`containment.ts`) can still hold the pipes
    proc.detach();
    const file = sink.toFile();
    o.notes.push(
      `Note: a process this command started still holds its output: what it prints from now on goes to "${file}"; ` +
        "it is stopped when the session ends",
    );
  } else if (leftBehind && !stopped) {
    o.notes.push(
      "Note: the background processes this command left running were stopped when it returned: " +
        "use run_in_background for servers and watchers",
    );
  }
  const cwd = stopped ? ctx.session.cwd : finalCwd(ctx.session, cwdFile, o.notes);
  try {
    Deno.removeSync(cwdFile);
  } catch {
    // already gone
  }
  const head: string[] = [];
  if (stopped === "timeout") {
    head.push(
      `Timed out after ${timeoutMs} ms: the process group was stopped (SIGTERM, then SIGKILL after ${graceMs} ms); output so far:`,
    );
  } else if (stopped === "aborted") head.push("Aborted: the process group was stopped; output so far:");
  else if (status.signal) head.push(`Killed by ${status.signal}`);
  else if (status.code !== 0) head.push(`Exit code ${status.code}`);
  const output = sink.text();
  const text = [...head, output === "" ? "(no output)" : output.replace(/\n$/, ""), ...o.notes].join("\n");
  return {
    text,
    data: {
      exitCode: status.signal ? null : status.code,
      signal: status.signal ?? null,
      timedOut: stopped === "timeout",
      interrupted: stopped === "aborted",
      cwd,
      outputPath: sink.filePath,
      outputChars: sink.totalChars,
      backgroundProcesses: !drained || leftBehind,
      sandboxed: o.sandboxed,
      pgid: proc.pgid,
    },
  };
}

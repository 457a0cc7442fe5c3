/**
 * Spawns one `bash -c` command as the leader of its own process group
 * (`detached: true`), optionally inside the OS sandbox, records the group in
 * the session's tracker and ledger, and pumps stdout and stderr, interleaved
 * in arrival order, into an {@link OutputSink}.
 *
 * @module
 */
import { sandboxCommand, type SandboxSettings } from "../sandbox/sandbox.ts";
import type { OutputSink } from "./output_sink.ts";
import { processStartTime, TASK_MARKER_ENV } from "./process_group.ts";
import type { GroupTracker } from "./tracker.ts";

/** PATH given to commands when the environment has none. */
export const DEFAULT_PATH = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin";
/** How long the readers may go on after the group was killed before they are cancelled (ms). */
const READER_GRACE_MS = 1000;

/** Options of {@link spawnShell}. */
export interface ShellSpawnOptions {
  /** Task id: names the group in the ledger and marks its environment. */
  id: string;
  /** The command line. */
  command: string;
  /** Working directory. */
  cwd: string;
  /** Environment (the only variables the command sees, plus PATH and the marker). */
  env: Readonly<Record<string, string>>;
  /** The shell. Default `bash`. */
  shell?: string;
  /** Run inside the OS sandbox with these settings; undefined runs unsandboxed. */
  sandbox?: SandboxSettings;
  /** Folders the sandboxed command may write (the workspace roots). */
  writable: readonly string[];
  /** File that receives the final working directory (`pwd -P`) when the shell exits. */
  cwdFile?: string;
  /** Where the output goes. Closed when the readers finish. */
  sink: OutputSink;
  /** Called with each piece of output while `streaming` is on. */
  onChunk?: (text: string) => void;
  /** The session's groups. */
  tracker: GroupTracker;
  /** Whether it runs as a background task (recorded in the ledger). */
  background: boolean;
}

/** A running shell. */
export interface ShellProcess {
  /** Task id. */
  readonly id: string;
  /** Leader pid, equal to the process group id. */
  readonly pgid: number;
  /** Resolves when the shell itself exits. */
  readonly status: Promise<Deno.CommandStatus>;
  /** Resolves when both output pipes are closed (every holder exited) or the readers were cancelled. */
  readonly pumped: Promise<void>;
  /** Whether it runs in its own PID namespace (bubblewrap): nothing of it outlives the shell. */
  readonly pidNamespace: boolean;
  /** Whether both pipes are closed (or the readers were cancelled). */
  isDrained(): boolean;
  /** Stops passing output to `onChunk` (the file still gets it). */
  detach(): void;
  /** Stops the group: SIGTERM, grace, SIGKILL; resolves once it is gone and the readers finished. */
  stop(): Promise<void>;
}

function quote(word: string): string {
  return `'${word.replaceAll("'", `'\\''`)}'`;
}

/**
 * Starts `command`. Throws what `Deno.Command` throws (program missing, permission refused).
 */
export function spawnShell(o: ShellSpawnOptions): ShellProcess {
  const shell = o.shell ?? "bash";
  // one pipe for both streams keeps their order exact; the other pipe still carries the sandbox's own errors
  const prelude = o.cwdFile
    ? `exec 2>&1; __paddock_cwd() { pwd -P >| ${quote(o.cwdFile)}; } 2>/dev/null; trap __paddock_cwd EXIT\n`
    : "exec 2>&1\n";
  const script = prelude + o.command;
  let argv = [shell, "-c", script];
  let pidNamespace = false;
  if (o.sandbox) {
    const line = sandboxCommand(argv, {
      writable: o.writable,
      writableFiles: o.cwdFile ? [o.cwdFile] : [],
      cwd: o.cwd,
    }, o.sandbox);
    argv = [line.program, ...line.args];
    pidNamespace = line.pidNamespace;
  }
  const env: Record<string, string> = { PATH: DEFAULT_PATH, ...o.env, [TASK_MARKER_ENV]: o.id };
  const child = new Deno.Command(argv[0], {
    args: argv.slice(1),
    cwd: o.cwd,
    env,
    clearEnv: true,
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
    detached: true,
  }).spawn();
  const pgid = child.pid;
  const startTime = processStartTime(pgid) ?? "";

  let streaming = true;
  let drained = false;
  const readers: ReadableStreamDefaultReader<Uint8Array>[] = [];
  const write = (text: string) => {
    if (text === "") return;
    o.sink.write(text);
    if (streaming) o.onChunk?.(text);
  };
  const pump = async (stream: ReadableStream<Uint8Array>) => {
    const reader = stream.getReader();
    readers.push(reader);
    const dec = new TextDecoder();
    try {
      for (;;) {
        const { value, done } = await reader.read();
        if (done) break;
        write(dec.decode(value, { stream: true }));
      }
    } catch {
      // cancelled or the pipe broke: what arrived is kept
    }
    write(dec.decode());
  };
  const pumped = Promise.all([pump(child.stdout), pump(child.stderr)]).then(() => {
    drained = true;
    o.sink.close();
    o.tracker.settle(o.id);
    // bubblewrap's PID namespace dies with the shell: nothing of the group can be left;
    // a foreground call looks itself (it reports leftovers), a background task is looked at here
    if (pidNamespace) o.tracker.remove(o.id);
    else if (o.background) o.tracker.forgetIfGone(o.id);
  });
  const cancelReaders = () => readers.forEach((r) => r.cancel().catch(() => {}));
  // readers end when every holder of the pipes exits; bound that wait once the group was killed
  const settled = Promise.all([pumped, child.status]);
  o.tracker.add({
    id: o.id,
    pid: pgid,
    pgid,
    startTime,
    marker: o.id,
    startedAt: Date.now(),
    command: o.command,
    outputPath: o.sink.filePath,
    background: o.background,
  }, { done: settled, cancel: cancelReaders, readerGraceMs: READER_GRACE_MS });
  return {
    id: o.id,
    pgid,
    status: child.status,
    pumped,
    pidNamespace,
    isDrained: () => drained,
    detach: () => {
      streaming = false;
    },
    stop: () => o.tracker.stop(o.id),
  };
}

/**
 * Spawns one `bash -c` command as the leader of its own session and process
 * group (`detached: true`), contained so that nothing it starts outlives it
 * (inside the OS sandbox, or `containment.ts` unsandboxed), with the
 * allowlisted environment (`sandboxEnv`: never Paddock's own keys); records
 * it in the session's tracker and ledger, and pumps stdout and stderr,
 * interleaved in arrival order, into an {@link OutputSink}.
 *
 * When the shell exits, whatever it left running is stopped at once (in a
 * PID namespace the kernel does it): a command's background processes end
 * with it, foreground or background task alike.
 *
 * @module
 */
import { sandboxEnv } from "../sandbox/env.ts";
import { sandboxCommand, type SandboxSettings } from "../sandbox/sandbox.ts";
import { containCommand, type Containment, type ContainmentChoice } from "./containment.ts";
import type { OutputSink } from "./output_sink.ts";
import { processStartTime, TASK_MARKER_ENV } from "./process_group.ts";
import type { GroupTracker } from "./tracker.ts";

/** PATH given to commands when the environment has none. */
export const DEFAULT_PATH = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin";
/** How long the readers may go on after the group was killed before they are cancelled (ms). */
const READER_GRACE_MS = 1000;

/** Options of {@link spawnShell}. */
export interface ShellSpawnOptions {
  /** Task id: names the command in the ledger and marks its environment. */
  id: string;
  /** The command line. */
  command: string;
  /** Working directory. */
  cwd: string;
  /** The environment it is started from; only its allowlisted part reaches the command (`sandboxEnv`). */
  env: Readonly<Record<string, string>>;
  /** More variable names the command gets (the user's `--pass-env`). Default none. */
  passEnv?: readonly string[];
  /** The shell. Default `bash`. */
  shell?: string;
  /** Run inside the OS sandbox with these settings; undefined runs unsandboxed. */
  sandbox?: SandboxSettings;
  /** How an unsandboxed command is contained (`containment.ts`). Default `auto`. */
  containment?: ContainmentChoice;
  /** Folders the sandboxed command may write (the workspace roots). */
  writable: readonly string[];
  /** File that receives the final working directory (`pwd -P`) when the shell exits. */
  cwdFile?: string;
  /** Where the output goes. Closed when the readers finish. */
  sink: OutputSink;
  /** Called with each piece of output while `streaming` is on. */
  onChunk?: (text: string) => void;
  /** The session's commands. */
  tracker: GroupTracker;
  /** Whether it runs as a background task (recorded in the ledger). */
  background: boolean;
}

/** A running shell. */
export interface ShellProcess {
  /** Task id. */
  readonly id: string;
  /** Leader pid (the shell, or `unshare` / bubblewrap around it), equal to the process group id. */
  readonly pgid: number;
  /** Resolves when the shell exited and nothing it started runs any more. */
  readonly status: Promise<Deno.CommandStatus>;
  /** Resolves when both output pipes are closed (every holder exited) or the readers were cancelled. */
  readonly pumped: Promise<void>;
  /** How its processes are held together (`pid-namespace` also for the sandbox). */
  readonly containment: Containment;
  /**
   * Whether processes it started still ran when the shell exited, so they were stopped. Always false
   * in a PID namespace, where the kernel ends them unseen.
   */
  leftBehind(): boolean;
  /** Whether both pipes are closed (or the readers were cancelled). */
  isDrained(): boolean;
  /** Stops passing output to `onChunk` (the file still gets it). */
  detach(): void;
  /** Stops it and all it started: SIGTERM, grace, SIGKILL; resolves once gone and the readers finished. */
  stop(): Promise<void>;
}

function quote(word: string): string {
  return `'${word.replaceAll("'", `'\\''`)}'`;
}

/**
 * Starts `command`. Throws what `Deno.Command` throws (program missing,
 * permission refused), and an `UnavailableError` for an explicit containment
 * that this machine cannot give.
 */
export function spawnShell(o: ShellSpawnOptions): ShellProcess {
  const shell = o.shell ?? "bash";
  const contained = o.sandbox ? undefined : containCommand(o.containment);
  // one pipe for both streams keeps their order exact; the other pipe still carries the sandbox's own errors
  const prelude = (contained?.prelude ?? "") +
    (o.cwdFile
      ? `exec 2>&1; __paddock_cwd() { pwd -P >| ${quote(o.cwdFile)}; } 2>/dev/null; trap __paddock_cwd EXIT\n`
      : "exec 2>&1\n");
  let argv = [...(contained?.prefix ?? []), shell, "-c", prelude + o.command];
  let release = contained?.release ?? (() => Promise.resolve());
  if (o.sandbox) {
    const line = sandboxCommand(argv, {
      writable: o.writable,
      writableFiles: o.cwdFile ? [o.cwdFile] : [],
      cwd: o.cwd,
      home: o.env.HOME,
    }, o.sandbox);
    argv = [line.program, ...line.args];
    release = line.release; // the sandbox's placeholders and cgroup, once the command is gone
  }
  const containment: Containment = contained?.kind ?? "pid-namespace";
  const env: Record<string, string> = {
    PATH: DEFAULT_PATH,
    ...sandboxEnv(o.env, o.passEnv),
    [TASK_MARKER_ENV]: o.id,
  };
  let child: Deno.ChildProcess;
  try {
    child = new Deno.Command(argv[0], {
      args: argv.slice(1),
      cwd: o.cwd,
      env,
      clearEnv: true,
      stdin: "null",
      stdout: "piped",
      stderr: "piped",
      detached: true,
    }).spawn();
  } catch (err) {
    void release();
    throw err;
  }
  const pgid = child.pid;
  const startTime = processStartTime(pgid) ?? "";

  let streaming = true;
  let drained = false;
  let leftBehind = false;
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
  });
  const cancelReaders = () => readers.forEach((r) => r.cancel().catch(() => {}));
  o.tracker.add({
    id: o.id,
    pid: pgid,
    pgid,
    startTime,
    marker: o.id,
    containment,
    cgroups: contained?.cgroups.length ? contained.cgroups : undefined,
    startedAt: Date.now(),
    command: o.command,
    outputPath: o.sink.filePath,
    background: o.background,
  }, {
    // readers end when every holder of the pipes exits; bound that wait once the command was stopped
    done: Promise.all([pumped, child.status]),
    cancel: cancelReaders,
    readerGraceMs: READER_GRACE_MS,
  });
  const status = child.status.then(async (s) => {
    // the shell is gone: nothing it started may outlive it (a PID namespace already saw to that)
    if (containment !== "pid-namespace" && o.tracker.forgetIfGone(o.id)) {
      leftBehind = true;
      await o.tracker.stop(o.id);
    }
    return s;
  }).finally(() => release());
  // once the pipes closed too, the tracker and the ledger forget it
  Promise.all([pumped, status]).then(() => o.tracker.forgetIfGone(o.id)).catch(() => {});
  return {
    id: o.id,
    pgid,
    status,
    pumped,
    containment,
    leftBehind: () => leftBehind,
    isDrained: () => drained,
    detach: () => {
      streaming = false;
    },
    stop: () => o.tracker.stop(o.id),
  };
}

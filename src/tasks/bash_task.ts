/**
 * A background Bash command as a {@link TaskHandle}: its output goes to a
 * file from the start, its status follows the shell's exit, and stopping it
 * kills its whole process group.
 *
 * @module
 */
import type { ShellProcess } from "./shell.ts";
import type { TaskHandle, TaskStatus } from "./types.ts";

/**
 * Wraps a started shell as a task. `timeoutMs` (optional) stops it when it
 * runs past that time.
 *
 * @example
 * ```ts ignore
 * const task = new BashTask(shell, { description: "dev server", outputPath: "/tmp/o.log" });
 * sessionTasks(session).set(task.id, task);
 * ```
 */
export class BashTask implements TaskHandle {
  /** Task id. */
  readonly id: string;
  /** Always `bash`. */
  readonly kind = "bash" as const;
  /** What it is. */
  readonly description: string;
  /** The output file. */
  readonly outputPath: string;
  /** Start time (ms since the epoch). */
  readonly startedAt: number;
  /** Process group id. */
  readonly pgid: number;
  /** The command line. */
  readonly command: string;
  #shell: ShellProcess;
  #status: TaskStatus = "running";
  #exitCode: number | undefined;
  #signal: string | undefined;
  #stopping = false;
  #timedOut = false;
  #done: Promise<void>;
  #outputCut: () => boolean;

  /** Creates the task around a started shell. */
  constructor(
    shell: ShellProcess,
    info: {
      description: string;
      outputPath: string;
      command: string;
      startedAt: number;
      timeoutMs?: number;
      outputCut?: () => boolean;
    },
  ) {
    this.#outputCut = info.outputCut ?? (() => false);
    this.#shell = shell;
    this.id = shell.id;
    this.pgid = shell.pgid;
    this.description = info.description;
    this.outputPath = info.outputPath;
    this.command = info.command;
    this.startedAt = info.startedAt;
    const timer = info.timeoutMs
      ? setTimeout(() => {
        this.#timedOut = true;
        this.stop().catch(() => {});
      }, info.timeoutMs)
      : undefined;
    this.#done = shell.status.then((s) => {
      clearTimeout(timer);
      this.#exitCode = s.code;
      this.#signal = s.signal ?? undefined;
      this.#status = this.#stopping || s.signal ? "killed" : s.success ? "completed" : "failed";
    });
  }

  /** Current status. */
  status(): TaskStatus {
    return this.#status;
  }

  /** The shell's exit code once it exited. */
  exitCode(): number | undefined {
    return this.#exitCode;
  }

  /** The signal that ended the shell, if one did. */
  signal(): string | undefined {
    return this.#signal;
  }

  /** Whether its own timeout stopped it. */
  timedOut(): boolean {
    return this.#timedOut;
  }

  /** Resolves when the shell exited. */
  done(): Promise<void> {
    return this.#done;
  }

  /** Resolves when the output file is complete (every pipe holder exited, or the readers were cancelled). */
  flushed(): Promise<void> {
    return this.#shell.pumped;
  }

  /** Whether the output file reached its size limit (`MAX_FILE_BYTES`), so the rest of the output was cut. */
  outputCut(): boolean {
    return this.#outputCut();
  }

  /** Kills the command and everything it started (`stop.ts`) and waits for it. */
  async stop(): Promise<void> {
    if (this.#status === "running") this.#stopping = true;
    await this.#shell.stop();
    await this.#done;
  }
}

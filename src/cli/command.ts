/**
 * The shape of a CLI subcommand.
 *
 * @module
 */

/** Streams and environment a command uses, injected for tests. */
export interface CliIo {
  /** Writes to standard output. */
  out: (text: string) => void;
  /** Writes to standard error. */
  err: (text: string) => void;
  /** Standard input. */
  stdin: ReadableStream<Uint8Array>;
  /** Whether stdin is a terminal (prompts are only shown on one). */
  isTerminal: boolean;
  /** Environment variables. */
  env: Readonly<Record<string, string>>;
  /** The process cwd. */
  cwd: string;
  /** Aborted on SIGINT/SIGTERM. */
  signal: AbortSignal;
  /**
   * Takes over SIGINT (Ctrl-C) until the returned function is called: a SIGINT then calls
   * `handler` instead of aborting `signal` (SIGTERM and SIGHUP still abort it). Absent when the
   * I/O is not wired to process signals (in-memory I/O in tests).
   */
  onInterrupt?: (handler: () => void) => () => void;
}

/**
 * A subcommand: `paddock <name> …`. Its name, summary, help and flags are in
 * `flags.ts`; its module, loaded only when it is the one asked for, exports
 * this as `command`.
 */
export interface CliCommand {
  /** Runs it with the arguments after its name; returns the exit code (0 ok, 1 tool error, 2 usage error). */
  run: (args: string[], io: CliIo) => Promise<number>;
}

/** Thrown for bad arguments; the CLI prints the message and exits 2. */
export class UsageError extends Error {
  /** Creates the error. */
  constructor(message: string) {
    super(message);
    this.name = "UsageError";
  }
}

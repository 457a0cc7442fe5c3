/**
 * The Bash tool's contract: its options, input and results, and the limits
 * they default to. Shared by `bash.ts` (the tool) and `foreground.ts` (a
 * foreground run), which import it and not each other.
 *
 * @module
 */
import type { SandboxSettings } from "../../sandbox/sandbox.ts";
import type { ContainmentChoice } from "../../tasks/containment.ts";

/**
 * Default time limit of a command (ms).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { DEFAULT_BASH_TIMEOUT_MS } from "./options.ts";
 * assert.equal(DEFAULT_BASH_TIMEOUT_MS, 2 * 60_000);
 * ```
 */
export const DEFAULT_BASH_TIMEOUT_MS = 120_000;
/** Largest time limit a call may ask for (ms). */
export const MAX_BASH_TIMEOUT_MS = 600_000;
/** How long output is still read after bash exits, when children hold the pipes (ms). */
export const DEFAULT_DRAIN_MS = 250;
/** Cap on the text one Bash call gives the model (characters). */
export const BASH_MAX_OUTPUT_CHARS = 30_000;

/**
 * Options of the Bash tool (and of the tasks it starts).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { createBashTool } from "./bash.ts";
 * import type { BashOptions } from "./options.ts";
 * const options: BashOptions = {
 *   defaultTimeoutMs: 30_000,
 *   ledgerDir: false,
 *   sandbox: { allowNetwork: false },
 * };
 * assert.equal(createBashTool(options).name, "Bash");
 * ```
 */
export interface BashOptions {
  /**
   * Run commands in the OS sandbox (bubblewrap on Linux, sandbox-exec on macOS): `true`, settings,
   * or `false` to run them with only Deno's own checks. Where the sandbox cannot start, a call
   * fails closed and says why and how to fix it.
   * @default {true}
   */
  sandbox?: boolean | SandboxSettings;
  /**
   * Honour a call's `dangerouslyDisableSandbox: true` (the command then runs unsandboxed, and the
   * call always asks the approver, in every mode). When false the field is refused.
   * @default {false}
   */
  allowUnsandboxedCommands?: boolean;
  /** Time limit when a call gives none (ms). Default {@link DEFAULT_BASH_TIMEOUT_MS}. */
  defaultTimeoutMs?: number;
  /** Time between SIGTERM and SIGKILL when a group is stopped (ms). Default 2000. */
  graceMs?: number;
  /** How long to read on after bash exits (ms). Default {@link DEFAULT_DRAIN_MS}. */
  drainMs?: number;
  /** Task ledger folder; `false` keeps none. Default `<first root>/.paddock/tasks`. */
  ledgerDir?: string | false;
  /** The shell program. Default `bash`. */
  shell?: string;
  /**
   * More environment variables commands get, by name, besides PATH, HOME, LANG, LC_*, TERM, TZ,
   * USER, LOGNAME, SHELL and TMPDIR (the user's `--pass-env`). Paddock's own model and search keys
   * (OPENAI_API_KEY, BRAVE_API_KEY, BRAVE_SEARCH_API_KEY, SEARXNG*, PADDOCK_*KEY*…) never reach a
   * command, even when named here.
   * @default {[]}
   */
  passEnv?: readonly string[];
  /**
   * How an unsandboxed command's processes are kept together so that none outlives its timeout,
   * TaskStop or the runtime (`src/tasks/containment.ts`): `auto` takes the first that works here of
   * a PID namespace (`unshare`), a cgroup, a PID namespace in a user namespace, and the process
   * group with a `/proc` scan; naming one that cannot apply here fails the call. Sandboxed commands
   * always have bubblewrap's PID namespace.
   * @default {"auto"}
   */
  containment?: ContainmentChoice;
}

/**
 * Structured result of a foreground Bash call.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { runTool, Session, ToolRegistry } from "../../../mod.ts";
 * import { createBashTool } from "./bash.ts";
 * import type { BashResult } from "./options.ts";
 * await using session = new Session({ roots: [await Deno.realPath(Deno.cwd())] });
 * const r = await runTool(new ToolRegistry([createBashTool({ ledgerDir: false })]), {
 *   name: "Bash",
 *   input: { command: "exit 3" },
 * }, { session, approver: () => Promise.resolve(true) });
 * const data = r.data as BashResult;
 * assert.equal(data.exitCode, 3);
 * assert.equal(data.timedOut, false);
 * ```
 */
export interface BashResult {
  /** Exit code of bash, or null when a signal ended it. */
  exitCode: number | null;
  /** The signal that ended bash, if any. */
  signal: string | null;
  /** Whether the time limit stopped it. */
  timedOut: boolean;
  /** Whether an abort stopped it. */
  interrupted: boolean;
  /** The session's working directory after the call. */
  cwd: string;
  /** File holding the whole output, when one was written. */
  outputPath?: string;
  /** Characters of output. */
  outputChars: number;
  /**
   * Whether processes the command started still ran when bash exited (they were stopped then, or,
   * having escaped, when the session ends). False in a PID namespace, where the kernel ends them unseen.
   */
  backgroundProcesses: boolean;
  /** Whether it ran in the OS sandbox. */
  sandboxed: boolean;
  /** Process group id the command ran in. */
  pgid: number;
}

/**
 * Structured result of a Bash call with `run_in_background`.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { runTool, Session, ToolRegistry } from "../../../mod.ts";
 * import { createBashTool } from "./bash.ts";
 * import type { BashBackgroundResult } from "./options.ts";
 * await using session = new Session({ roots: [await Deno.realPath(Deno.cwd())] });
 * const r = await runTool(new ToolRegistry([createBashTool({ ledgerDir: false })]), {
 *   name: "Bash",
 *   input: { command: "sleep 1", run_in_background: true },
 * }, { session, approver: () => Promise.resolve(true) });
 * assert.match((r.data as BashBackgroundResult).taskId, /^b/);
 * ```
 */
export interface BashBackgroundResult {
  /** Task id for TaskOutput and TaskStop. */
  taskId: string;
  /** File that receives the output. */
  outputPath: string;
  /** Process group id. */
  pgid: number;
}

/**
 * Input of the Bash tool.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { createBashTool } from "./bash.ts";
 * import type { BashInput } from "./options.ts";
 * const input: BashInput = { command: "deno test", description: "Run the tests", timeout: 300_000 };
 * assert.ok(createBashTool().input.safeParse(input).success);
 * ```
 */
export interface BashInput {
  /** The command to run with `bash -c`. */
  command: string;
  /** Time limit in ms. */
  timeout?: number;
  /** What the command does. */
  description?: string;
  /** Run as a background task. */
  run_in_background?: boolean;
  /** Run outside the OS sandbox: honoured only when the user allows unsandboxed commands, and always asks. */
  dangerouslyDisableSandbox?: boolean;
}

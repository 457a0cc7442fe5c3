/**
 * Bash: runs a command with `bash -c` as the leader of its own process
 * group, optionally inside the OS sandbox. A timeout or an abort stops the
 * whole group (SIGTERM, then SIGKILL after a grace period); the call ends
 * when bash exits even if background children still hold the pipes; output
 * streams to `onOutput` and is held in bounded memory; the working directory
 * persists in the session and stays inside the workspace. With
 * `run_in_background` the command becomes a task for TaskOutput / TaskStop.
 *
 * @module
 */
import { z } from "zod";
import { UnavailableError } from "../../errors.ts";
import { defineTool, type Tool } from "../../tool/define_tool.ts";
import { sandboxProgram, sandboxSelfTest, type SandboxSettings } from "../../sandbox/sandbox.ts";
import { BashTask } from "../../tasks/bash_task.ts";
import { defaultLedgerDir } from "../../tasks/ledger.ts";
import { OutputSink } from "../../tasks/output_sink.ts";
import { spawnShell } from "../../tasks/shell.ts";
import { sessionGroups } from "../../tasks/tracker.ts";
import { newTaskId, sessionTasks } from "../../tasks/types.ts";
import { prepareCwd } from "./cwd.ts";
import { runForeground, startShell } from "./foreground.ts";

/** Default time limit of a command (ms). */
export const DEFAULT_BASH_TIMEOUT_MS = 120_000;
/** Largest time limit a call may ask for (ms). */
export const MAX_BASH_TIMEOUT_MS = 600_000;
/** How long output is still read after bash exits, when children hold the pipes (ms). */
export const DEFAULT_DRAIN_MS = 250;
/** Cap on the text one Bash call gives the model (characters). */
export const BASH_MAX_OUTPUT_CHARS = 30_000;

/** Options of the Bash tool (and of the tasks it starts). */
export interface BashOptions {
  /** Run commands in the OS sandbox: `true`, or settings. Default false. */
  sandbox?: boolean | SandboxSettings;
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
}

/** Structured result of a foreground Bash call. */
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
  /** Whether background children outlived bash (their group is still running). */
  backgroundProcesses: boolean;
  /** Whether it ran in the OS sandbox. */
  sandboxed: boolean;
  /** Process group id the command ran in. */
  pgid: number;
}

/** Structured result of a Bash call with `run_in_background`. */
export interface BashBackgroundResult {
  /** Task id for TaskOutput and TaskStop. */
  taskId: string;
  /** File that receives the output. */
  outputPath: string;
  /** Process group id. */
  pgid: number;
}

/** Input of the Bash tool. */
export interface BashInput {
  /** The command to run with `bash -c`. */
  command: string;
  /** Time limit in ms. */
  timeout?: number;
  /** What the command does. */
  description?: string;
  /** Run as a background task. */
  run_in_background?: boolean;
}

const Input: z.ZodType<BashInput> = z.strictObject({
  command: z.string().min(1).describe("The command to run with bash -c"),
  timeout: z.number().int().positive().max(
    MAX_BASH_TIMEOUT_MS,
    `timeout is at most ${MAX_BASH_TIMEOUT_MS} ms (10 minutes): use run_in_background for longer commands`,
  ).optional().describe(`Time limit in ms (default ${DEFAULT_BASH_TIMEOUT_MS}, max ${MAX_BASH_TIMEOUT_MS})`),
  description: z.string().optional().describe("What the command does, in 5 to 10 words"),
  run_in_background: z.boolean().optional().describe(
    "Run as a background task: returns at once with a task id for TaskOutput and TaskStop",
  ),
});

function sandboxNote(sandbox: SandboxSettings | undefined): string {
  if (!sandbox) return "";
  const linux = Deno.build.os === "linux";
  return " Commands run in an OS sandbox: only the workspace is writable" +
    (linux ? ", /tmp is private" : "") +
    (sandbox.allowNetwork ? "" : ", there is no network") +
    (linux
      ? ", and a foreground command's background children end with it (use run_in_background for servers)"
      : "") +
    ".";
}

function sandboxSettings(option: BashOptions["sandbox"]): SandboxSettings | undefined {
  if (option === undefined || option === false) return undefined;
  return option === true ? {} : option;
}

/**
 * Creates the Bash tool.
 *
 * @example
 * ```ts
 * import { createBashTool } from "./bash.ts";
 * const bash = createBashTool({ sandbox: false });
 * console.assert(bash.name === "Bash" && bash.programs?.includes("bash"));
 * ```
 */
export function createBashTool(
  options: BashOptions = {},
): Tool<BashInput, BashResult | BashBackgroundResult> {
  const sandbox = sandboxSettings(options.sandbox);
  const shell = options.shell ?? "bash";
  const programs = sandbox ? [shell, sandboxProgram(sandbox) ?? "bwrap"] : [shell];
  return defineTool<BashInput, BashResult | BashBackgroundResult>({
    name: "Bash",
    description:
      "Runs a shell command with bash in the session's working directory (which persists between calls and stays inside the workspace). " +
      `Default time limit ${DEFAULT_BASH_TIMEOUT_MS} ms, at most ${MAX_BASH_TIMEOUT_MS}; on timeout the whole process group is stopped. ` +
      "Output is stdout and stderr interleaved; long output keeps its head and tail and the full text is saved to a file. " +
      "Use run_in_background for servers and long jobs, then TaskOutput to read and TaskStop to stop them. " +
      "Prefer Read, Grep, Glob and Edit over cat, grep, find and sed." +
      sandboxNote(sandbox),
    sideEffect: "Execute",
    input: Input,
    maxOutputChars: BASH_MAX_OUTPUT_CHARS,
    timeoutMs: MAX_BASH_TIMEOUT_MS + 60_000,
    programs,
    summarize: (input) => input.description ?? input.command,
    execute: async (input, ctx) => {
      if (sandbox) await sandboxSelfTest(sandbox);
      const tracker = sessionGroups(ctx.session, {
        ledgerDir: options.ledgerDir === false
          ? undefined
          : options.ledgerDir ?? defaultLedgerDir(ctx.roots[0]),
        graceMs: options.graceMs,
      });
      if (tracker.closed) {
        throw new UnavailableError("The session is closed: start a new one to run commands");
      }
      const notes: string[] = [];
      const cwd = prepareCwd(ctx.session, notes);
      const id = newTaskId("b");
      const base = {
        id,
        command: input.command,
        cwd,
        env: ctx.env,
        shell,
        sandbox,
        writable: ctx.roots,
        tracker,
      };
      if (input.run_in_background) {
        const outputPath = ctx.session.outputPath(`task-${id}.log`);
        const sink = new OutputSink({ filePath: outputPath, fileOnly: true });
        const proc = startShell(() => spawnShell({ ...base, sink, background: true }), shell, sink);
        const task = new BashTask(proc, {
          description: input.description ?? input.command,
          outputPath,
          command: input.command,
          startedAt: ctx.now(),
          timeoutMs: input.timeout,
        });
        sessionTasks(ctx.session).set(id, task);
        return {
          text:
            `Started background task "${id}" (process group ${proc.pgid}); its output goes to "${outputPath}". ` +
            `Read it with TaskOutput (task_id "${id}") and stop it with TaskStop.${
              notes.map((n) => `\n${n}`).join("")
            }`,
          data: { taskId: id, outputPath, pgid: proc.pgid },
        };
      }
      return await runForeground(input, ctx, { ...base, notes, options, sandboxed: sandbox !== undefined });
    },
  });
}

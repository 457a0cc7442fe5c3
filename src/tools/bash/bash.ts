/**
 * Bash: runs a command with `bash -c` as the leader of its own process
 * group, inside the OS sandbox or, unsandboxed, contained (a PID namespace, a
 * cgroup, or the group and a `/proc` scan: `src/tasks/containment.ts`), with
 * an allowlisted environment (`src/sandbox/env.ts`). A timeout or an abort
 * stops the command and all it started (SIGTERM, then SIGKILL after a grace
 * period), and so does bash's exit for what it left running; output streams to
 * `onOutput` and is held in bounded memory; the working directory persists in
 * the session and stays inside the workspace. With `run_in_background` the
 * command becomes a task for TaskOutput / TaskStop.
 *
 * @module
 */
import { z } from "zod";
import { UnavailableError } from "../../errors.ts";
import { defineTool, type Tool } from "../../tool/define_tool.ts";
import { sandboxProgram, sandboxSelfTest, type SandboxSettings } from "../../sandbox/sandbox.ts";
import { BashTask } from "../../tasks/bash_task.ts";
import { containmentPrograms } from "../../tasks/containment.ts";
import { defaultLedgerDir } from "../../tasks/ledger.ts";
import { OutputSink } from "../../tasks/output_sink.ts";
import { spawnShell } from "../../tasks/shell.ts";
import { sessionGroups } from "../../tasks/tracker.ts";
import { newTaskId, sessionTasks } from "../../tasks/types.ts";
import { prepareCwd } from "./cwd.ts";
import { runForeground, startShell } from "./foreground.ts";
import {
  BASH_MAX_OUTPUT_CHARS,
  type BashBackgroundResult,
  type BashInput,
  type BashOptions,
  type BashResult,
  DEFAULT_BASH_TIMEOUT_MS,
  MAX_BASH_TIMEOUT_MS,
} from "./options.ts";

// the limits and the contract types live in options.ts, shared with foreground.ts; importers find them here too
export {
  BASH_MAX_OUTPUT_CHARS,
  type BashBackgroundResult,
  type BashInput,
  type BashOptions,
  type BashResult,
  DEFAULT_BASH_TIMEOUT_MS,
  DEFAULT_DRAIN_MS,
  MAX_BASH_TIMEOUT_MS,
} from "./options.ts";

/** The field a call sets to run outside the OS sandbox (Claude Code's name). */
export const DISABLE_SANDBOX_FIELD = "dangerouslyDisableSandbox";

const Fields = z.strictObject({
  command: z.string().min(1).describe("The command to run with bash -c"),
  timeout: z.number().int().positive().max(
    MAX_BASH_TIMEOUT_MS,
    `timeout is at most ${MAX_BASH_TIMEOUT_MS} ms (10 minutes): use run_in_background for longer commands`,
  ).optional().describe(`Time limit in ms (default ${DEFAULT_BASH_TIMEOUT_MS}, max ${MAX_BASH_TIMEOUT_MS})`),
  description: z.string().optional().describe("What the command does, in 5 to 10 words"),
  run_in_background: z.boolean().optional().describe(
    "Run as a background task: returns at once with a task id for TaskOutput and TaskStop",
  ),
  dangerouslyDisableSandbox: z.boolean().optional().describe(
    "Run outside the OS sandbox: only when the user allows unsandboxed commands, and the user is always asked",
  ),
});

/** The input schema; `dangerouslyDisableSandbox: true` is refused unless the user's policy allows it. */
function inputSchema(allowUnsandboxed: boolean): z.ZodType<BashInput> {
  if (allowUnsandboxed) return Fields;
  return Fields.superRefine((input, ctx) => {
    if (input.dangerouslyDisableSandbox) {
      ctx.addIssue({
        code: "custom",
        path: [DISABLE_SANDBOX_FIELD],
        message:
          `${DISABLE_SANDBOX_FIELD} is refused: the user's policy does not allow unsandboxed commands (the user can allow them with --allow-unsandboxed-commands or "allowUnsandboxedCommands": true in their own settings); run the command in the sandbox instead`,
      });
    }
  });
}

function sandboxNote(sandbox: SandboxSettings | undefined): string {
  if (!sandbox) return "";
  const linux = Deno.build.os === "linux";
  return " Commands run in an OS sandbox: only the workspace is writable" +
    (linux ? ", /tmp is private" : "") +
    (sandbox.allowNetwork ? "" : ", there is no network") +
    ".";
}

function sandboxSettings(option: BashOptions["sandbox"]): SandboxSettings | undefined {
  if (option === false) return undefined;
  return option === undefined || option === true ? {} : option;
}

/**
 * Creates the Bash tool.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { createBashTool } from "./bash.ts";
 * const bash = createBashTool({ sandbox: false });
 * assert.ok(bash.name === "Bash" && bash.programs?.includes("bash"));
 * ```
 */
export function createBashTool(
  options: BashOptions = {},
): Tool<BashInput, BashResult | BashBackgroundResult> {
  const sandboxed = sandboxSettings(options.sandbox);
  const allowUnsandboxed = options.allowUnsandboxedCommands ?? false;
  const shell = options.shell ?? "bash";
  const programs = [
    shell,
    ...(sandboxed ? [sandboxProgram(sandboxed) ?? "bwrap"] : []),
    ...(!sandboxed || allowUnsandboxed ? containmentPrograms(options.containment) : []),
  ];
  return defineTool<BashInput, BashResult | BashBackgroundResult>({
    name: "Bash",
    description:
      "Runs a shell command with bash in the session's working directory (which persists between calls and stays inside the workspace). " +
      `Default time limit ${DEFAULT_BASH_TIMEOUT_MS} ms, at most ${MAX_BASH_TIMEOUT_MS}; on timeout the whole process group is stopped. ` +
      "Output is stdout and stderr interleaved; long output keeps its head and tail and the full text is saved to a file. " +
      "A command's background processes end when it returns: use run_in_background for servers and long jobs, " +
      "then TaskOutput to read and TaskStop to stop them. " +
      "Prefer Read, Grep, Glob and Edit over cat, grep, find and sed." +
      sandboxNote(sandboxed),
    sideEffect: "Execute",
    input: inputSchema(allowUnsandboxed),
    maxOutputChars: BASH_MAX_OUTPUT_CHARS,
    timeoutMs: MAX_BASH_TIMEOUT_MS + 60_000,
    programs,
    summarize: (input) => input.description ?? input.command,
    execute: async (input, ctx) => {
      // the runner asked the user for this call (permissions/decide.ts: it always asks)
      const sandbox = input.dangerouslyDisableSandbox && allowUnsandboxed ? undefined : sandboxed;
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
        passEnv: options.passEnv,
        shell,
        sandbox,
        containment: options.containment,
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
          outputCut: () => sink.fileFull,
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

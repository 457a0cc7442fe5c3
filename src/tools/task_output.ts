/**
 * TaskOutput: status, exit code and the tail of the output of a background
 * task (a Bash command or an agent), optionally waiting for it to finish.
 *
 * @module
 */
import { z } from "zod";
import { NotFoundError } from "../errors.ts";
import { defineTool, type Tool } from "../tool/define_tool.ts";
import type { Session } from "../session/session.ts";
import { BashTask } from "../tasks/bash_task.ts";
import { MAX_FILE_BYTES } from "../tasks/output_sink.ts";
import { readOutputTail, TASK_OUTPUT_TAIL_CHARS } from "../tasks/output_tail.ts";
import { sessionTasks, type TaskHandle, type TaskStatus } from "../tasks/types.ts";

/** Default wait of a blocking read (ms). */
export const DEFAULT_TASK_WAIT_MS = 30_000;
/** Longest wait a blocking read may ask for (ms). */
export const MAX_TASK_WAIT_MS = 600_000;
/** How long a read of a finished task waits for its last output to reach the file (ms). */
const FLUSH_WAIT_MS = 100;

/**
 * Structured result of TaskOutput.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import type { TaskOutputResult } from "./task_output.ts";
 * const done = (r: TaskOutputResult): boolean => r.status !== "running" && !r.waitTimedOut;
 * assert.ok(done({
 *   task_id: "b1",
 *   kind: "bash",
 *   status: "completed",
 *   exitCode: 0,
 *   output: "ok\n",
 *   outputPath: "/tmp/b1.log",
 *   totalBytes: 3,
 *   waitTimedOut: false,
 * }));
 * ```
 */
export interface TaskOutputResult {
  /** Task id. */
  task_id: string;
  /** What runs it. */
  kind: "bash" | "agent";
  /** Status when the read returned. */
  status: TaskStatus;
  /** Exit code once done (bash). */
  exitCode?: number;
  /** The output (its tail when long). */
  output: string;
  /** The output file. */
  outputPath: string;
  /** Size of the output file in bytes. */
  totalBytes: number;
  /** Whether a blocking read ran out of time with the task still running. */
  waitTimedOut: boolean;
}

/**
 * Input of TaskOutput.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { type TaskOutputInput, taskOutputTool } from "./task_output.ts";
 * const input: TaskOutputInput = { task_id: "b1a2b3c4", block: true, timeout: 10_000 };
 * assert.ok(taskOutputTool.input.safeParse(input).success);
 * ```
 */
export interface TaskOutputInput {
  /** Task id. */
  task_id: string;
  /** Wait for the task to finish (default true). */
  block?: boolean;
  /** How long a blocking read waits (ms). */
  timeout?: number;
}

const Input: z.ZodType<TaskOutputInput> = z.strictObject({
  task_id: z.string().min(1).describe("Id of the task (from Bash run_in_background or a background Agent)"),
  block: z.boolean().optional().describe("Wait for the task to finish before returning (default true)"),
  timeout: z.number().int().min(0).max(MAX_TASK_WAIT_MS).optional().describe(
    `How long a blocking read waits, in ms (default ${DEFAULT_TASK_WAIT_MS}, max ${MAX_TASK_WAIT_MS})`,
  ),
});

/**
 * The task `id` of the session, or a {@link NotFoundError} naming the known ones.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { Session } from "../session/session.ts";
 * import { findTask } from "./task_output.ts";
 * let msg = "";
 * try {
 *   findTask(new Session({ roots: [Deno.cwd()] }), "b1");
 * } catch (e) {
 *   msg = (e as Error).message;
 * }
 * assert.ok(msg.startsWith('No task "b1"'));
 * ```
 */
export function findTask(session: Session, id: string): TaskHandle {
  const tasks = sessionTasks(session);
  const task = tasks.get(id);
  if (task) return task;
  const known = [...tasks.keys()];
  throw new NotFoundError(
    `No task "${id}"${
      known.length
        ? `: known tasks are ${known.map((k) => `"${k}"`).join(", ")}`
        : ": this session has no tasks"
    }`,
  );
}

async function waitFor(task: TaskHandle, ms: number, signal: AbortSignal): Promise<boolean> {
  if (task.status() !== "running") return true;
  let timer: ReturnType<typeof setTimeout> | undefined;
  let onAbort: (() => void) | undefined;
  const outcome = await Promise.race([
    task.done().then(() => true, () => true),
    new Promise<boolean>((resolve) => {
      timer = setTimeout(() => resolve(false), ms);
      onAbort = () => resolve(false);
      signal.addEventListener("abort", onAbort, { once: true });
    }),
  ]);
  clearTimeout(timer);
  if (onAbort) signal.removeEventListener("abort", onAbort);
  return outcome;
}

/**
 * The TaskOutput tool.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { runTool, Session, ToolRegistry } from "../../mod.ts";
 * import { type BashBackgroundResult, createBashTool } from "./bash/bash.ts";
 * import { taskOutputTool } from "./task_output.ts";
 * const dir = await Deno.realPath(await Deno.makeTempDir());
 * const session = new Session({ roots: [dir] });
 * const registry = new ToolRegistry([createBashTool({ ledgerDir: false }), taskOutputTool]);
 * const options = { session, approver: () => Promise.resolve(true) };
 * const started = await runTool(registry, {
 *   name: "Bash",
 *   input: { command: "echo done", run_in_background: true },
 * }, options);
 * const { taskId } = started.data as BashBackgroundResult;
 * const r = await runTool(registry, { name: "TaskOutput", input: { task_id: taskId } }, options);
 * assert.match(r.text, /done/);
 * await session.close();
 * await Deno.remove(dir, { recursive: true });
 * ```
 */
export const taskOutputTool: Tool<TaskOutputInput, TaskOutputResult> = defineTool<
  TaskOutputInput,
  TaskOutputResult
>({
  name: "TaskOutput",
  description: "Returns the status, exit code and output (its last part when long) of a background task. " +
    `By default waits up to ${DEFAULT_TASK_WAIT_MS} ms for the task to finish; block=false returns at once.`,
  sideEffect: "None",
  input: Input,
  timeoutMs: MAX_TASK_WAIT_MS + 60_000,
  summarize: (input) => input.task_id,
  execute: async (input, ctx) => {
    const task = findTask(ctx.session, input.task_id);
    const waitMs = input.timeout ?? DEFAULT_TASK_WAIT_MS;
    let waitTimedOut = false;
    if ((input.block ?? true) && task.status() === "running") {
      waitTimedOut = !(await waitFor(task, waitMs, ctx.signal));
    }
    if (task.status() !== "running") {
      // the task ended: let its readers put the last bytes in the file
      const flushed = task.flushed?.();
      if (flushed) {
        let timer: ReturnType<typeof setTimeout> | undefined;
        await Promise.race([flushed, new Promise((r) => (timer = setTimeout(r, FLUSH_WAIT_MS)))]);
        clearTimeout(timer);
      }
    }
    const status = task.status();
    const exitCode = task.exitCode();
    const tail = await readOutputTail(task.outputPath, TASK_OUTPUT_TAIL_CHARS);
    const result = task.result?.();
    const output = result ?? tail.text;
    const lines = [
      `Task "${task.id}" (${task.kind}: ${task.description}): ${status}${
        exitCode !== undefined ? `, exit code ${exitCode}` : ""
      }`,
    ];
    if (task instanceof BashTask && task.timedOut()) {
      lines.push("Its time limit (the Bash timeout) ran out, so its process group was stopped");
    }
    if (task.outputCut?.()) {
      lines.push(
        `Its output file reached its limit of ${MAX_FILE_BYTES} bytes (64 MiB): the rest of the output was cut, ` +
          "so the end below is where the file stops, not where the task's output ends",
      );
    }
    if (waitTimedOut) {
      lines.push(`Waited ${waitMs} ms and the task is still running: read again later or stop it`);
    }
    if (result === undefined) {
      lines.push(`Output (${tail.totalBytes} bytes, written to "${task.outputPath}"):`);
      if (tail.skippedBytes > 0) {
        lines.push(
          `[… the first ${tail.skippedBytes} bytes are not shown: read them from the file with Read …]`,
        );
      }
    }
    lines.push(output === "" ? "(no output yet)" : output.replace(/\n$/, ""));
    return {
      text: lines.join("\n"),
      data: {
        task_id: task.id,
        kind: task.kind,
        status,
        exitCode,
        output,
        outputPath: task.outputPath,
        totalBytes: tail.totalBytes,
        waitTimedOut,
      },
    };
  },
});

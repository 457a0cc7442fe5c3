/**
 * TaskStop: stops a background task. For a Bash task the whole process group
 * is killed (SIGTERM, then SIGKILL after the grace period), children left
 * after the shell exited included; for an agent, its run is aborted.
 * `shell_id` is accepted as the old name of `task_id`.
 *
 * @module
 */
import { z } from "zod";
import { InvalidInputError } from "../errors.ts";
import { defineTool, type Tool } from "../tool/define_tool.ts";
import type { TaskStatus } from "../tasks/types.ts";
import { findTask } from "./task_output.ts";

/**
 * Structured result of TaskStop.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import type { TaskStopResult } from "./task_stop.ts";
 * const result: TaskStopResult = { task_id: "b1", kind: "bash", status: "killed", stopped: true };
 * assert.equal(result.status, "killed");
 * ```
 */
export interface TaskStopResult {
  /** Task id. */
  task_id: string;
  /** What ran it. */
  kind: "bash" | "agent";
  /** Status after the call. */
  status: TaskStatus;
  /** Whether this call stopped it (false when it had already finished). */
  stopped: boolean;
}

/**
 * Input of TaskStop.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { type TaskStopInput, taskStopTool } from "./task_stop.ts";
 * const input: TaskStopInput = { task_id: "b1a2b3c4" };
 * assert.ok(taskStopTool.input.safeParse(input).success);
 * ```
 */
export interface TaskStopInput {
  /** Id of the task to stop. */
  task_id?: string;
  /** Old name of `task_id`. */
  shell_id?: string;
}

const Input: z.ZodType<TaskStopInput> = z.strictObject({
  task_id: z.string().min(1).optional().describe("Id of the task to stop"),
  shell_id: z.string().min(1).optional().describe("Old name of task_id, still accepted"),
});

/**
 * The TaskStop tool.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { runTool, Session, ToolRegistry } from "../../mod.ts";
 * import { type BashBackgroundResult, createBashTool } from "./bash/bash.ts";
 * import { taskStopTool } from "./task_stop.ts";
 * const dir = await Deno.realPath(await Deno.makeTempDir());
 * const session = new Session({ roots: [dir] });
 * const registry = new ToolRegistry([createBashTool({ ledgerDir: false }), taskStopTool]);
 * const options = { session, approver: () => Promise.resolve(true) };
 * const started = await runTool(registry, {
 *   name: "Bash",
 *   input: { command: "sleep 30", run_in_background: true },
 * }, options);
 * const { taskId } = started.data as BashBackgroundResult;
 * const r = await runTool(registry, { name: "TaskStop", input: { task_id: taskId } }, options);
 * assert.ok(r.ok);
 * await session.close();
 * await Deno.remove(dir, { recursive: true });
 * ```
 */
export const taskStopTool: Tool<TaskStopInput, TaskStopResult> = defineTool<TaskStopInput, TaskStopResult>({
  name: "TaskStop",
  description:
    "Stops a background task: kills a Bash task and every process it started, or stops a background agent.",
  sideEffect: "Execute",
  input: Input,
  programs: ["bash"],
  summarize: (input) => input.task_id ?? input.shell_id ?? "",
  execute: async (input, ctx) => {
    if (input.task_id && input.shell_id && input.task_id !== input.shell_id) {
      throw new InvalidInputError(
        `Give either task_id or shell_id, not both with different values ("${input.task_id}", "${input.shell_id}")`,
      );
    }
    const id = input.task_id ?? input.shell_id;
    if (!id) throw new InvalidInputError("Missing task_id: give the id of the task to stop");
    const task = findTask(ctx.session, id);
    const before = task.status();
    // a finished Bash task may still have children in its group: stop() kills them too
    await task.stop();
    const status = task.status();
    const stopped = before === "running";
    const what = task.kind === "bash"
      ? "it and every process it started were killed"
      : "the agent was stopped";
    return {
      text: stopped
        ? `Stopped task "${task.id}" (${task.description}): ${what}`
        : `Task "${task.id}" had already finished (${before}${
          task.exitCode() !== undefined ? `, exit code ${task.exitCode()}` : ""
        }): nothing left to stop`,
      data: { task_id: task.id, kind: task.kind, status, stopped },
    };
  },
});

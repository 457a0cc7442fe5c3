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

/** Structured result of TaskStop. */
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

/** Input of TaskStop. */
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

/** The TaskStop tool. */
export const taskStopTool: Tool<TaskStopInput, TaskStopResult> = defineTool<TaskStopInput, TaskStopResult>({
  name: "TaskStop",
  description:
    "Stops a background task: kills a Bash task's whole process group, or stops a background agent.",
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
    const what = task.kind === "bash" ? "its process group was killed" : "the agent was stopped";
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

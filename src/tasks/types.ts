/**
 * Background tasks (Bash commands and agents) as one interface, so TaskOutput
 * and TaskStop serve both.
 *
 * @module
 */
import type { Session } from "../session/session.ts";

/**
 * States of a task.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { TASK_STATUSES } from "./types.ts";
 * assert.ok(TASK_STATUSES.includes("killed"));
 * ```
 */
export const TASK_STATUSES = ["running", "completed", "failed", "killed"] as const;

/**
 * One of {@link TASK_STATUSES}.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import type { TaskStatus } from "./types.ts";
 * const finished = (status: TaskStatus): boolean => status !== "running";
 * assert.ok(finished("killed"));
 * ```
 */
export type TaskStatus = typeof TASK_STATUSES[number];

/**
 * A background task, whatever runs it.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { runTool, Session, ToolRegistry } from "../../mod.ts";
 * import { createBashTool } from "../tools/bash/bash.ts";
 * import { sessionTasks, type TaskHandle } from "./types.ts";
 * await using session = new Session({ roots: [await Deno.realPath(Deno.cwd())] });
 * await runTool(new ToolRegistry([createBashTool({ ledgerDir: false })]), {
 *   name: "Bash",
 *   input: { command: "echo hi", run_in_background: true },
 * }, { session, approver: () => Promise.resolve(true) });
 * const [task]: TaskHandle[] = [...sessionTasks(session).values()];
 * await task.done();
 * assert.equal(task.status(), "completed");
 * assert.equal(task.exitCode(), 0);
 * ```
 */
export interface TaskHandle {
  /** Task id (unique within the session). */
  readonly id: string;
  /** What runs it. */
  readonly kind: "bash" | "agent";
  /** What it is, in a few words. */
  readonly description: string;
  /** File that receives the task's output as it comes. */
  readonly outputPath: string;
  /** Start time (ms since the epoch). */
  readonly startedAt: number;
  /** Current status. */
  status(): TaskStatus;
  /** Exit code once done (bash), else undefined. */
  exitCode(): number | undefined;
  /** Resolves when the task is no longer running. */
  done(): Promise<void>;
  /** Stops the task (kills its process group, or aborts the agent). */
  stop(): Promise<void>;
  /** A result summary for agents (final text), else undefined. */
  result?(): string | undefined;
  /** Resolves when the output file holds everything the task wrote (bash: the pipes closed), if it can tell. */
  flushed?(): Promise<void>;
  /** Whether the output file reached its size limit, so the rest of the output was cut (bash). */
  outputCut?(): boolean;
}

/**
 * The tasks of a session, by id.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { Session } from "../session/session.ts";
 * import { sessionTasks } from "./types.ts";
 * await using session = new Session({ roots: [Deno.cwd()] });
 * assert.equal(sessionTasks(session).size, 0);
 * ```
 */
export function sessionTasks(session: Session): Map<string, TaskHandle> {
  return session.slot("tasks", () => new Map<string, TaskHandle>());
}

/** A new task id with a prefix (`b` for bash, `a` for agents). */
export function newTaskId(prefix: string): string {
  return `${prefix}${crypto.randomUUID().replaceAll("-", "").slice(0, 8)}`;
}

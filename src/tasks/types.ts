/**
 * Background tasks (Bash commands and agents) as one interface, so TaskOutput
 * and TaskStop serve both.
 *
 * @module
 */
import type { Session } from "../session/session.ts";

/** States of a task. */
export const TASK_STATUSES = ["running", "completed", "failed", "killed"] as const;

/** One of {@link TASK_STATUSES}. */
export type TaskStatus = typeof TASK_STATUSES[number];

/** A background task, whatever runs it. */
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
}

/** The tasks of a session, by id. */
export function sessionTasks(session: Session): Map<string, TaskHandle> {
  return session.slot("tasks", () => new Map<string, TaskHandle>());
}

/** A new task id with a prefix (`b` for bash, `a` for agents). */
export function newTaskId(prefix: string): string {
  return `${prefix}${crypto.randomUUID().replaceAll("-", "").slice(0, 8)}`;
}

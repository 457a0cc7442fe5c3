/**
 * Background tasks (Bash commands and sub-agents started with
 * `run_in_background`): the handles of a session's tasks, the shutdown
 * handlers that kill every process group a runtime started, and the reaper
 * that cleans up after a runtime that crashed.
 *
 * @example List a session's tasks
 * ```ts
 * import assert from "node:assert/strict";
 * import { Session } from "../../mod.ts";
 * import { sessionTasks } from "./mod.ts";
 * await using session = new Session({ roots: [Deno.cwd()] });
 * assert.equal(sessionTasks(session).size, 0);
 * ```
 *
 * @module
 */
export { sessionTasks, TASK_STATUSES } from "./types.ts";
export type { TaskHandle, TaskStatus } from "./types.ts";
export { installShutdownHandlers } from "./shutdown.ts";
export type { ShutdownOptions } from "./shutdown.ts";
export { defaultLedgerDir, LEDGER_SUBDIR, reapOrphanedTasks } from "./ledger.ts";
export type { LedgerEntry, ReapReport } from "./ledger.ts";
export type { GroupRef } from "./process_group.ts";
export type { CommandRef } from "./stop.ts";
export { CONTAINMENTS } from "./containment.ts";
export type { Containment, ContainmentChoice } from "./containment.ts";

/**
 * The task ledger: every command a runtime starts is written to disk (pid,
 * pgid, leader start time, how it is contained and its cgroup, owner, output
 * file) so that a runtime that starts after a crash can reap what a dead
 * runtime left: the group leader is `unshare` or bubblewrap for a command in
 * its own PID namespace (killing it ends the namespace), the cgroup holds
 * every process of a `cgroup` command, and the task marker finds the strays
 * of a `process-group` one (`stop.ts`).
 *
 * Layout: one JSON file per live session, `<dir>/<session id>.json`, written
 * atomically (temp file, rename) by its owner only, so concurrent runtimes
 * never write the same file. The default directory is
 * `<first root>/.paddock/tasks` ({@link defaultLedgerDir}).
 *
 * @module
 */
import { join } from "node:path";
import { processStartTime } from "./process_group.ts";
import { type CommandRef, commandState, removeCgroupsSync, stopCommandsSync } from "./stop.ts";

/**
 * The ledger folder inside the first workspace root.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { defaultLedgerDir, LEDGER_SUBDIR } from "./ledger.ts";
 * assert.equal(defaultLedgerDir("/w"), `/w/${LEDGER_SUBDIR}`);
 * ```
 */
export const LEDGER_SUBDIR = ".paddock/tasks";

/**
 * One process group as the ledger records it.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import type { LedgerEntry } from "./ledger.ts";
 * const entry: LedgerEntry = {
 *   id: "b1a2b3c4",
 *   pid: 4242,
 *   pgid: 4242,
 *   startTime: "123456",
 *   marker: "b1a2b3c4",
 *   startedAt: Date.now(),
 *   command: "npm run dev",
 *   background: true,
 * };
 * assert.equal(entry.pid, entry.pgid);
 * ```
 */
export interface LedgerEntry extends CommandRef {
  /** Task id (also the group's marker). */
  id: string;
  /** The leader's pid (equal to `pgid`). */
  pid: number;
  /** When it started (ms since the epoch). */
  startedAt: number;
  /** The command line. */
  command: string;
  /** Where its output goes, when it has a file. */
  outputPath?: string;
  /** Whether it runs as a background task. */
  background: boolean;
}

/** Who wrote a ledger file. */
export interface LedgerOwner {
  /** Owner process id. */
  pid: number;
  /** Owner process start time ({@link processStartTime}). */
  startTime: string;
  /** Owner session id. */
  sessionId: string;
}

/** The content of one ledger file. */
export interface LedgerFile {
  /** Format version. */
  version: 1;
  /** The runtime that started the groups. */
  owner: LedgerOwner;
  /** The groups it started and has not seen end. */
  groups: LedgerEntry[];
}

/**
 * What {@link reapOrphanedTasks} did.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { reapOrphanedTasks, type ReapReport } from "./ledger.ts";
 * const dir = await Deno.makeTempDir();
 * const report: ReapReport = reapOrphanedTasks(dir);
 * assert.deepEqual(report, { reaped: [], skipped: [], removedFiles: [] });
 * await Deno.remove(dir, { recursive: true });
 * ```
 */
export interface ReapReport {
  /** Groups of dead runtimes that were still alive and were killed. */
  reaped: LedgerEntry[];
  /** Groups whose id now belongs to an unrelated process (left alone). */
  skipped: LedgerEntry[];
  /** Ledger files of dead runtimes that were removed. */
  removedFiles: string[];
}

/**
 * The default ledger folder for a workspace root.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { defaultLedgerDir } from "./ledger.ts";
 * assert.equal(defaultLedgerDir("/w"), "/w/.paddock/tasks");
 * ```
 */
export function defaultLedgerDir(root: string): string {
  return join(root, LEDGER_SUBDIR);
}

/** The ledger file a session writes. Writes are best effort: a failure is reported once through `onError`. */
export class Ledger {
  /** The file path. */
  readonly path: string;
  #owner: LedgerOwner | undefined;
  #entries = new Map<string, LedgerEntry>();
  #onError: (err: unknown) => void;
  #failed = false;

  /** Creates the ledger of session `sessionId` in `dir` (nothing is written until an entry is added). */
  constructor(dir: string, sessionId: string, onError: (err: unknown) => void = () => {}) {
    this.path = join(dir, `${sessionId.replace(/[^A-Za-z0-9_-]/g, "_")}.json`);
    this.#onError = onError;
    this.#owner = { pid: Deno.pid, startTime: "", sessionId };
  }

  /** Records a group. */
  add(entry: LedgerEntry): void {
    this.#entries.set(entry.id, entry);
    this.#flush();
  }

  /** Forgets a group (it ended or was killed). */
  remove(id: string): void {
    if (this.#entries.delete(id)) this.#flush();
  }

  /** The recorded groups. */
  entries(): LedgerEntry[] {
    return [...this.#entries.values()];
  }

  #flush(): void {
    try {
      if (this.#entries.size === 0) {
        Deno.removeSync(this.path);
        return;
      }
      const owner = this.#owner!;
      if (owner.startTime === "") owner.startTime = processStartTime(Deno.pid) ?? "";
      const file: LedgerFile = { version: 1, owner, groups: this.entries() };
      const dir = join(this.path, "..");
      Deno.mkdirSync(dir, { recursive: true });
      try {
        // the ledger lives in the workspace: keep it out of version control
        Deno.writeTextFileSync(join(dir, ".gitignore"), "*\n", { createNew: true });
      } catch {
        // already there
      }
      const tmp = `${this.path}.${crypto.randomUUID().slice(0, 8)}.tmp`;
      Deno.writeTextFileSync(tmp, JSON.stringify(file, null, 2) + "\n");
      Deno.renameSync(tmp, this.path);
    } catch (err) {
      if (err instanceof Deno.errors.NotFound && this.#entries.size === 0) return;
      if (!this.#failed) this.#onError(err);
      this.#failed = true;
    }
  }
}

function ownerAlive(owner: LedgerOwner): boolean {
  if (owner.pid === Deno.pid) return true;
  const start = processStartTime(owner.pid);
  return start !== undefined && (owner.startTime === "" || start === owner.startTime);
}

/**
 * Kills the groups that runtimes which are no longer running left behind in
 * ledger folder `dir`, and removes their ledger files. Files of live runtimes
 * are left alone. A group is only signalled when it is still the one the dead
 * runtime started (leader start time, or the task marker in a member's
 * environment). Blocking (at most the grace period plus a little), so it can
 * run inside `createRuntime`. A missing folder reaps nothing.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { reapOrphanedTasks } from "./ledger.ts";
 * const report = reapOrphanedTasks("/nonexistent/.paddock/tasks");
 * assert.equal(report.reaped.length, 0);
 * ```
 */
export function reapOrphanedTasks(dir: string, options: { graceMs?: number } = {}): ReapReport {
  const report: ReapReport = { reaped: [], skipped: [], removedFiles: [] };
  let names: string[];
  try {
    names = [...Deno.readDirSync(dir)].filter((e) => e.isFile && e.name.endsWith(".json")).map((e) => e.name);
  } catch {
    return report; // no ledger (or no permission to read it): nothing to reap
  }
  const doomed: LedgerEntry[] = [];
  const files: string[] = [];
  const dead: LedgerEntry[] = [];
  for (const name of names) {
    const path = join(dir, name);
    let file: LedgerFile;
    try {
      file = JSON.parse(Deno.readTextFileSync(path));
    } catch {
      continue;
    }
    if (!file?.owner || !Array.isArray(file.groups) || ownerAlive(file.owner)) continue;
    files.push(path);
    dead.push(...file.groups);
    for (const entry of file.groups) {
      const state = commandState(entry);
      if (state === "ours") doomed.push(entry);
      else if (state === "foreign") report.skipped.push(entry);
    }
  }
  if (doomed.length) stopCommandsSync(doomed, { graceMs: options.graceMs ?? 500 });
  // a command's cgroup outlives a crash: it goes once its processes are gone
  removeCgroupsSync(dead);
  report.reaped = doomed;
  for (const path of files) {
    try {
      Deno.removeSync(path);
      report.removedFiles.push(path);
    } catch {
      // another runtime reaped it first
    }
  }
  return report;
}

/**
 * The commands one session started, mirrored to the on-disk ledger, and
 * killed with all they started (`stop.ts`) when the session closes (or,
 * synchronously, when the process exits). A command stays tracked until
 * nothing of it runs.
 *
 * @module
 */
import type { Session } from "../session/session.ts";
import { Ledger, type LedgerEntry } from "./ledger.ts";
import { DEFAULT_GRACE_MS } from "./process_group.ts";
import { commandState, stopCommands, stopCommandsSync } from "./stop.ts";

/** How to wait for, and give up on, the output readers of a group. */
export interface GroupReaders {
  /** Resolves when the readers finished and the leader was reaped. */
  done: Promise<unknown>;
  /** Cancels the readers (a process that left the group may hold the pipes forever). */
  cancel: () => void;
  /** How long to wait for `done` after the group was killed before cancelling (ms). */
  readerGraceMs: number;
}

/** Options of {@link sessionGroups}. */
export interface TrackerOptions {
  /** Ledger folder; undefined keeps no ledger. */
  ledgerDir?: string;
  /** Time between SIGTERM and SIGKILL (ms). Default {@link DEFAULT_GRACE_MS}. */
  graceMs?: number;
}

/** The live process groups of a session. */
export class GroupTracker {
  #entries = new Map<string, LedgerEntry>();
  #readers = new Map<string, GroupReaders>();
  #stopping = new Map<string, Promise<void>>();
  #ledger: Ledger | undefined;
  #graceMs: number;
  #closed = false;

  /** Creates a tracker (use {@link sessionGroups} to get the session's one). */
  constructor(session: Session, options: TrackerOptions = {}) {
    this.#graceMs = options.graceMs ?? DEFAULT_GRACE_MS;
    if (options.ledgerDir) {
      this.#ledger = new Ledger(options.ledgerDir, session.id, (err) =>
        session.emit({
          type: "warning",
          message: `Cannot write the task ledger in "${options.ledgerDir}": ${
            (err as Error).message
          }: groups left by a crash will not be reaped`,
        }));
    }
  }

  /** Time between SIGTERM and SIGKILL (ms). */
  get graceMs(): number {
    return this.#graceMs;
  }

  /** Whether the session closed (no new groups may start). */
  get closed(): boolean {
    return this.#closed;
  }

  /** Records a group and, when it has them, its output readers. */
  add(entry: LedgerEntry, readers?: GroupReaders): void {
    this.prune();
    this.#entries.set(entry.id, entry);
    if (readers) this.#readers.set(entry.id, readers);
    this.#ledger?.add(entry);
  }

  /** Forgets a group known to be gone. */
  remove(id: string): void {
    this.#entries.delete(id);
    this.#readers.delete(id);
    this.#ledger?.remove(id);
  }

  /** The group of task `id`, if tracked. */
  get(id: string): LedgerEntry | undefined {
    return this.#entries.get(id);
  }

  /** Tracked groups. */
  list(): LedgerEntry[] {
    return [...this.#entries.values()];
  }

  /** Forgets groups that are gone; returns how many remain. */
  prune(): number {
    if (this.#entries.size === 0) return 0;
    for (const e of this.list()) {
      if (!this.#readers.has(e.id) && commandState(e) !== "ours") this.remove(e.id);
    }
    return this.#entries.size;
  }

  /** Marks the readers of group `id` as finished (the group may still have members). */
  settle(id: string): void {
    this.#readers.delete(id);
  }

  /** Forgets group `id` when it is gone; returns whether it still runs. */
  forgetIfGone(id: string): boolean {
    const e = this.#entries.get(id);
    if (!e) return false;
    if (commandState(e) === "ours") return true;
    this.remove(id);
    return false;
  }

  /**
   * Stops command `id` and all it started (SIGTERM, grace, SIGKILL) and waits
   * for its readers. Concurrent calls share one stop.
   */
  stop(id: string): Promise<void> {
    const e = this.#entries.get(id);
    if (!e) return Promise.resolve();
    let stopping = this.#stopping.get(id);
    if (!stopping) {
      stopping = (async () => {
        await stopCommands([e], { graceMs: this.#graceMs });
        await this.#finishReaders([id]);
        this.remove(id);
      })().finally(() => this.#stopping.delete(id));
      this.#stopping.set(id, stopping);
    }
    return stopping;
  }

  /** Stops every group and waits for their readers; no new group may start after. */
  async killAll(): Promise<void> {
    this.#closed = true;
    const all = this.list();
    if (all.length) await stopCommands(all, { graceMs: this.#graceMs });
    await this.#finishReaders([...this.#readers.keys()]);
    for (const e of all) this.remove(e.id);
  }

  async #finishReaders(ids: string[]): Promise<void> {
    await Promise.all(ids.map(async (id) => {
      const r = this.#readers.get(id);
      if (!r) return;
      let timer: ReturnType<typeof setTimeout> | undefined;
      const late = new Promise<"late">((
        resolve,
      ) => (timer = setTimeout(() => resolve("late"), r.readerGraceMs)));
      const outcome = await Promise.race([r.done.then(() => "done" as const, () => "done" as const), late]);
      clearTimeout(timer);
      if (outcome === "late") r.cancel();
      await r.done.catch(() => {});
    }));
  }

  /** Stops every group, blocking (for `unload`): SIGTERM, a short grace, SIGKILL. */
  killAllSync(graceMs: number = Math.min(this.#graceMs, 1000)): void {
    this.#closed = true;
    const all = this.list();
    if (all.length === 0) return;
    stopCommandsSync(all, { graceMs });
    for (const e of all) this.remove(e.id);
  }
}

const trackers = new WeakMap<Session, GroupTracker>();

/**
 * The session's group tracker, created on first use with `options`; its
 * creation registers a session cleanup that kills every group.
 *
 * @example
 * ```ts
 * import { Session } from "../session/session.ts";
 * import { sessionGroups } from "./tracker.ts";
 * const session = new Session({ roots: [Deno.cwd()] });
 * console.assert(sessionGroups(session).list().length === 0);
 * await session.close();
 * ```
 */
export function sessionGroups(session: Session, options: TrackerOptions = {}): GroupTracker {
  let tracker = trackers.get(session);
  if (!tracker) {
    const created = new GroupTracker(session, options);
    trackers.set(session, created);
    session.addCleanup(() => created.killAll());
    tracker = created;
  }
  return tracker;
}

/** The session's tracker if one was created, without creating it. */
export function existingGroups(session: Session): GroupTracker | undefined {
  return trackers.get(session);
}

/**
 * Indexing a session's workspace ahead of its first Glob call. An agent's
 * first tool call comes after a model turn, seconds at best; a process that
 * starts cold walks a big tree at ~1.5× `fd` (its code not compiled yet). So
 * `paddock run` and `chat` have the walk helper thread (`walk_helper.ts`)
 * list the workspace, and stat its files, while the model thinks: this
 * thread only takes in what the helper posts. The listings go into a private
 * index that joins the session's when the walk is complete; a Glob call that
 * comes first stops the walk and drops it, so it walks cold as it would have
 * (never slower for the attempt), and a tree bigger than the limits
 * ({@link INDEX_AHEAD_MAX_FILES}, {@link INDEX_AHEAD_MAX_FOLDERS}) is
 * dropped too. A Grep call holds the walk while it runs (rg wants both
 * cores: a Grep beside the walk took 1.5× as long). Nothing is trusted for
 * being indexed early: a warm call stats every folder it uses, so a change
 * made since shows up.
 *
 * @module
 */
import type { Session } from "../session/session.ts";
import { FileIndex, WalkTrail } from "./file_index.ts";
import { sessionIndex } from "./options.ts";
import { sharedWalk, type WalkHelper, walkHelper } from "./walk_helper.ts";

/** Files indexed ahead at most: past this the walk stops and its index is dropped. */
export const INDEX_AHEAD_MAX_FILES = 300_000;

/** Folders indexed ahead at most (a tree of many near-empty folders), likewise. */
export const INDEX_AHEAD_MAX_FOLDERS = 100_000;

/** Counts the folders a walk reads (keeping none of them), and calls `over` past a limit. */
class FolderCount extends WalkTrail {
  count = 0;
  constructor(readonly limit: number, readonly over: () => void) {
    super();
  }
  override add(): void {
    if (++this.count > this.limit) this.over();
  }
}

/** State of a walk made ahead: under way, joined the session's index, or dropped. */
export type IndexAheadState = "running" | "joined" | "dropped";

/** A walk of the workspace made ahead of Glob's first call (see the module notes). */
export interface IndexAhead {
  /** Where it stands. */
  readonly state: IndexAheadState;
  /** Files it found so far. */
  readonly files: number;
  /** Settles when the walk ends: true when its index joined the session's. */
  readonly done: Promise<boolean>;
  /** Stops the walk (its index is dropped) and waits for it to end. */
  stop(): Promise<void>;
  /**
   * Pauses the walk until the returned function is called (by every holder):
   * a search in the foreground has both cores to itself meanwhile.
   */
  hold(): () => void;
}

/** Options of {@link indexAhead}. */
export interface IndexAheadOptions {
  /** Folder to index. Default: the session's cwd. */
  root?: string;
  /** Apply ignore files, as Glob does (`respectGitignore`). Default true. */
  respectIgnore?: boolean;
  /** Files at most (default {@link INDEX_AHEAD_MAX_FILES}). */
  maxFiles?: number;
  /** Folders at most (default {@link INDEX_AHEAD_MAX_FOLDERS}). */
  maxFolders?: number;
  /** The helper thread; default the process's, when started and ready. */
  helper?: WalkHelper;
}

const SLOT = "search.indexAhead";

/** The session's walk made ahead, and whether Glob was called (after which none starts). */
interface AheadSlot {
  ahead?: IndexAhead;
  globCalled?: boolean;
}

/**
 * Starts indexing the session's workspace on the walk helper thread; the
 * walk stops when the session closes. Undefined (nothing started) without a
 * ready helper, once Glob has been called in the session, or when the
 * session already has one under way or joined.
 *
 * @example
 * ```ts
 * import { Session } from "../session/session.ts";
 * import { indexAhead } from "./index_ahead.ts";
 * import { startWalkHelper, stopWalkHelper } from "./walk_helper.ts";
 * const dir = Deno.makeTempDirSync();
 * Deno.writeTextFileSync(`${dir}/a.ts`, "");
 * await startWalkHelper()?.whenReady;
 * const session = new Session({ roots: [dir] });
 * console.assert(await indexAhead(session)?.done === true);
 * await session.close();
 * await stopWalkHelper();
 * Deno.removeSync(dir, { recursive: true });
 * ```
 */
export function indexAhead(session: Session, options: IndexAheadOptions = {}): IndexAhead | undefined {
  const helper = options.helper ?? walkHelper();
  if (!helper?.ready) return undefined;
  const running = session.slot<AheadSlot>(SLOT, () => ({}));
  if (running.globCalled || (running.ahead && running.ahead.state !== "dropped")) return undefined;
  const root = options.root ?? session.cwd;
  const maxFiles = options.maxFiles ?? INDEX_AHEAD_MAX_FILES;
  const index = new FileIndex();
  const abort = new AbortController();
  const holdBuffer = new SharedArrayBuffer(4);
  const holders = new Int32Array(holdBuffer);
  let state: IndexAheadState = "running";
  let files = 0;
  const walked = sharedWalk(index, root, {
    pattern: "**",
    match: { test: () => true },
    respectIgnore: options.respectIgnore ?? true,
    helper,
    helperOnly: true,
    statKept: true,
    hold: holdBuffer,
    signal: abort.signal,
    trail: new FolderCount(options.maxFolders ?? INDEX_AHEAD_MAX_FOLDERS, () => abort.abort()),
    onFile(_relDir, name, node, k, dir) {
      index.fileMtime(dir, node, k, name); // the folders this thread read before sharing
      if (++files > maxFiles) abort.abort();
    },
  });
  const done = walked.then(
    (complete) => {
      if (!complete || abort.signal.aborted) return false;
      sessionIndex(session).absorb(index);
      return true;
    },
    () => false,
  ).then((joined) => {
    state = joined ? "joined" : "dropped";
    return joined;
  });
  const ahead: IndexAhead = {
    get state() {
      return state;
    },
    get files() {
      return files;
    },
    done,
    async stop() {
      abort.abort();
      await done;
    },
    hold() {
      Atomics.add(holders, 0, 1);
      let held = true;
      return () => {
        if (!held) return;
        held = false;
        if (Atomics.sub(holders, 0, 1) === 1) Atomics.notify(holders, 0);
      };
    },
  };
  running.ahead = ahead;
  session.addCleanup(() => ahead.stop());
  return ahead;
}

/**
 * Before a Glob call: a walk made ahead that is still under way is stopped
 * and dropped, so the call walks as if there had been none (and has the
 * helper thread to itself); none starts in the session after this.
 *
 * @example
 * ```ts
 * import { Session } from "../session/session.ts";
 * import { settleIndexAhead } from "./index_ahead.ts";
 * await settleIndexAhead(new Session()); // nothing under way: returns at once
 * ```
 */
export async function settleIndexAhead(session: Session): Promise<void> {
  const slot = session.slot<AheadSlot>(SLOT, () => ({}));
  slot.globCalled = true;
  if (slot.ahead?.state === "running") await slot.ahead.stop();
}

/**
 * Before a search that does not use the index (Grep): pauses a walk made
 * ahead that is under way, so the search has both cores; call the returned
 * function when the search ends.
 *
 * @example
 * ```ts
 * import { Session } from "../session/session.ts";
 * import { holdIndexAhead } from "./index_ahead.ts";
 * const release = holdIndexAhead(new Session()); // nothing under way: nothing held
 * release();
 * ```
 */
export function holdIndexAhead(session: Session): () => void {
  const ahead = session.slot<AheadSlot>(SLOT, () => ({})).ahead;
  return ahead?.state === "running" ? ahead.hold() : () => {};
}

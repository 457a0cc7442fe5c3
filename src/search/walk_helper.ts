/**
 * A helper thread for Glob's first walk of a tree. fd walks with every core;
 * a walk on one thread, with the stats newest-first needs on top, cannot keep
 * up on a big tree. So a process may start one helper thread ahead of time
 * ({@link startWalkHelper}; starting costs the main thread ~30 ms and the
 * thread is ready ~60 ms later, too much to pay inside a call). A cold walk
 * then goes breadth-first until it has {@link SHARE_TARGET} subtrees pending,
 * shares that list with the helper through a `SharedArrayBuffer` counter, and
 * both threads take subtrees from it until none is left: each walks and stats
 * its own, and the helper posts its folders back into the session's index.
 *
 * A warm call's work is one stat per folder, and the helper takes half of
 * those too ({@link checkListings}): Glob's check of a remembered answer, and
 * the check ahead of a warm walk, share the folders through a second counter.
 *
 * The helper keeps nothing between walks (a first call stays a first call),
 * does not keep the process alive when idle, and is never waited for long: a
 * walk that finds it busy or broken takes the subtrees itself, and a check
 * waits at most {@link CHECK_WAIT_MS} for a chunk the helper took.
 *
 * @module
 */
import { fileURLToPath } from "node:url";
import { setImmediate } from "node:timers";
import { Worker } from "node:worker_threads";
import {
  checkClaimed,
  type DirNode,
  type FileIndex,
  type ListingCheck,
  type ListingChecks,
  type WalkFrame,
  type WalkOptions,
} from "./file_index.ts";
import { type MtimeClaims, mtimeOf, statClaimed } from "./stat_claims.ts";

/** Subtrees a walk gathers breadth-first before sharing them. */
export const SHARE_TARGET = 64;

/** Fewer pending subtrees than this when the tree runs out: the walk stays on this thread. */
export const SHARE_FROM = 4;

/** One shared walk, as the helper receives it. */
export interface WalkJob {
  /** What to do. */
  kind: "walk";
  /** Job id. */
  id: number;
  /** The walk's root. */
  root: string;
  /** Subtrees to take from. */
  frames: WalkFrame[];
  /** Apply ignore files. */
  respectIgnore: boolean;
  /** Deepest folder level to list files from. */
  maxDepth: number;
  /** The Glob pattern, relative to the root. */
  pattern: string;
  /** Int32 [next subtree to take, stop flag]. */
  claims: SharedArrayBuffer;
  /** See {@link SharedWalkOptions.hold}. */
  hold?: SharedArrayBuffer;
}

/** Listings a warm check shares with the helper: fewer are checked on the main thread alone. */
export const SHARE_CHECK_FROM = 256;

/** Listings per claim in a shared check (~2.5 µs a stat here: about 80 µs a chunk). */
const CHECK_CHUNK = 32;

/** Longest the main thread waits for the helper's last chunk of a check before doing it itself (ms). */
export const CHECK_WAIT_MS = 5;

/** A warm check the helper takes part in (see {@link checkListings}). */
export interface CheckJob extends ListingChecks {
  /** What to do. */
  kind: "check";
}

/** Matches without a known mtime that a warm call shares with the helper: fewer are statted on the main thread alone. */
export const SHARE_STAT_FROM = 512;

/** Paths per claim in shared stats. */
const STAT_CHUNK = 64;

/** mtimes the helper stats beside the main thread (see {@link shareMtimes}). */
export interface MtimeJob extends MtimeClaims {
  /** What to do. */
  kind: "mtimes";
}

/**
 * Stats `paths` (mtimes in ms, 0 where a path cannot be statted), or
 * declines with undefined; see {@link shareMtimes}.
 */
export type MtimeStatter = (paths: readonly string[]) => Float64Array | undefined;

/** What {@link checkListings} needs of a helper thread ({@link WalkHelper} has it). */
export interface CheckHelper {
  /** Whether it can take work. */
  readonly ready: boolean;
  /** Sends it a check, or stats to share. */
  postCheck(job: CheckJob | MtimeJob): void;
  /** Chunks of folders (or paths) it has checked for this process (it shows the thread took part). */
  chunksChecked: number;
}

/** One folder the helper read. */
export interface WalkedFolder {
  /** Absolute folder. */
  dir: string;
  /** Its path from the root. */
  rel: string;
  /** The listing, as {@link DirNode} has it. */
  readAt: number;
  /** Regular files, as {@link DirNode.packedFiles}. */
  packedFiles: string;
  /** How many. */
  fileCount: number;
  /** Subfolders. */
  dirs: readonly string[];
  /** Holds `.git`. */
  hasGit: boolean;
  /** Ignore files present. */
  ignoreFiles: readonly string[];
  /** Indexes (in `packedFiles`) of the files that matched and are not ignored. */
  hits: Uint32Array;
  /** Their names. */
  hitNames: string[];
  /** mtimes of the hits (NaN elsewhere). */
  mtimes?: Float64Array;
}

/** What the helper posts. */
export type WalkReply =
  | { type: "ready" }
  | { type: "part"; id: number; i: number; folders: WalkedFolder[]; unreadable: string[] }
  | { type: "error"; id: number; message: string }
  | { type: "end"; id: number };

/** Options of {@link sharedWalk}. */
export interface SharedWalkOptions extends WalkOptions {
  /** The Glob pattern relative to the root (the helper compiles it again). */
  pattern: string;
  /**
   * Once the walk is shared, stat each kept file on the thread that found it
   * (the mtime is in the node before `onFile` runs).
   */
  statKept?: boolean;
  /** The helper to share with; default the process's, when started and ready; null for none. */
  helper?: WalkHelper | null;
  /** Work between turns of the event loop (ms). Default 20. */
  sliceMs?: number;
  /**
   * Once the walk is shared, leave every subtree to the helper: this thread
   * only takes in what the helper posts (a walk in the background). Default false.
   */
  helperOnly?: boolean;
  /**
   * Int32 [holders]: while non-zero, the helper pauses between folders (a
   * walk in the background makes way for a search in the foreground); wake
   * it with `Atomics.notify` when the count drops to zero.
   */
  hold?: SharedArrayBuffer;
}

/** A shared walk's state on the main thread (between {@link sharedWalk} and the helper). */
export interface SharedWalkState {
  /** The index the helper's folders go into. */
  index: FileIndex;
  /** The walk's `onFile`. */
  onFile: WalkOptions["onFile"];
  /** The walk's trail, if it keeps one. */
  trail?: WalkOptions["trail"];
  /** Subtrees the helper reported. */
  reported: Set<number>;
  /** Called when a part or the end arrives. */
  wake?: () => void;
  /** The helper finished, failed or stopped. */
  ended: boolean;
}

let shared: WalkHelper | undefined;

/** The modules of the walk helper's thread: its entry and what it imports. */
const WALK_MODULES = ["walk_worker.ts", "file_index.ts", "ignore.ts", "glob_match.ts", "stat_claims.ts"];
/** The modules of `MtimeLoader`'s thread. */
export const MTIME_MODULES: readonly string[] = ["mtime_worker.ts", "stat_claims.ts"];

/**
 * Local files Deno must let this process read for the search tools' worker
 * threads to load (a worker's modules are read under the process's
 * permissions; default: both workers'); empty when the code is not loaded
 * from local files.
 *
 * @example
 * ```ts
 * import { searchWorkerFiles } from "./walk_helper.ts";
 * console.assert(searchWorkerFiles().some((f) => f.endsWith("walk_worker.ts")));
 * ```
 */
export function searchWorkerFiles(
  modules: readonly string[] = [...new Set([...WALK_MODULES, ...MTIME_MODULES])],
): string[] {
  const here = new URL(".", import.meta.url);
  if (here.protocol !== "file:") return [];
  return modules.map((m) => fileURLToPath(new URL(m, here)));
}

/** Whether Deno lets this process read `files` (asks, never prompts). */
export function mayRead(files: readonly string[]): boolean {
  try {
    return files.every((path) => Deno.permissions.querySync({ name: "read", path }).state === "granted");
  } catch {
    return false;
  }
}

/**
 * Starts the process's walk helper thread (once; later calls return it).
 * Undefined when Deno would not let the thread load its modules.
 *
 * @example
 * ```ts
 * import { startWalkHelper, stopWalkHelper } from "./walk_helper.ts";
 * const helper = startWalkHelper();
 * await helper?.whenReady;
 * console.assert(helper?.ready);
 * await stopWalkHelper();
 * ```
 */
export function startWalkHelper(): WalkHelper | undefined {
  if (shared && !shared.broken) return shared;
  if (!mayRead(searchWorkerFiles(WALK_MODULES))) return undefined;
  shared = new WalkHelper();
  return shared;
}

/** The process's walk helper when it is started, ready and working; else undefined. */
export function walkHelper(): WalkHelper | undefined {
  return shared?.ready ? shared : undefined;
}

/** Stops the process's walk helper thread, if one was started. */
export async function stopWalkHelper(): Promise<void> {
  const h = shared;
  shared = undefined;
  await h?.stop();
}

/** A helper thread (see the module notes). */
export class WalkHelper implements CheckHelper {
  #worker: Worker;
  #ready = false;
  #broken = false;
  #jobs = new Map<number, SharedWalkState>();
  #nextId = 0;
  /** Folders the thread has walked for this process (it shows the thread took part). */
  foldersWalked = 0;
  /** Chunks of folders (or paths) the thread has checked for this process. */
  chunksChecked = 0;
  /** Resolves when the thread is ready (or broken). */
  readonly whenReady: Promise<void>;

  constructor() {
    let resolve!: () => void;
    this.whenReady = new Promise((r) => resolve = r);
    // referenced until ready (so awaiting whenReady keeps the process alive), then only while a walk waits on it
    this.#worker = new Worker(new URL("./walk_worker.ts", import.meta.url));
    this.#worker.on("message", (m: WalkReply) => {
      if (m.type === "ready") {
        this.#ready = true;
        if (this.#jobs.size === 0) this.#worker.unref();
        resolve();
      } else this.#reply(m);
    });
    this.#worker.on("error", () => this.#fail(resolve));
    this.#worker.on("exit", () => this.#fail(resolve));
  }

  /** Whether it can take work. */
  get ready(): boolean {
    return this.#ready && !this.#broken;
  }

  /** Whether the thread failed or was stopped. */
  get broken(): boolean {
    return this.#broken;
  }

  /** Stops the thread; walks under way finish on their own thread. */
  async stop(): Promise<void> {
    this.#broken = true;
    await this.#worker.terminate();
    this.#failJobs();
  }

  /** Sends a job (the caller checked {@link ready}). */
  post(id: number, job: SharedWalkState, msg: WalkJob): void {
    this.#jobs.set(id, job);
    this.#worker.ref(); // a walk waiting on the helper keeps the process alive
    this.#worker.postMessage(msg);
  }

  /** Sends a check or stats: the helper claims chunks while they last, and answers through the shared buffers. */
  postCheck(job: CheckJob | MtimeJob): void {
    this.#worker.postMessage(job);
  }

  /** A fresh job id. */
  nextId(): number {
    return this.#nextId++;
  }

  /** Forgets a job (its late parts are dropped). */
  done(id: number): void {
    this.#jobs.delete(id);
    if (this.#jobs.size === 0) this.#worker.unref();
  }

  #reply(m: WalkReply): void {
    if (m.type === "ready") return;
    const job = this.#jobs.get(m.id);
    if (!job) return;
    if (m.type === "part") {
      this.foldersWalked += m.folders.length;
      adopt(job, m.folders, m.unreadable);
      job.reported.add(m.i);
    } else job.ended = true; // "end", or "error": what was not reported is walked on the main thread
    job.wake?.();
  }

  #fail(resolve: () => void): void {
    this.#broken = true;
    resolve();
    this.#failJobs();
  }

  #failJobs(): void {
    for (const job of this.#jobs.values()) {
      job.ended = true;
      job.wake?.();
    }
    this.#jobs.clear();
  }
}

/**
 * A {@link ListingCheck} that stats the folders on this thread and the
 * helper thread at once: a warm Glob call is one stat per folder its last
 * walk read, and the stats are all its work. Each thread claims chunks of
 * folders from a shared counter; this one then waits (at most
 * {@link CHECK_WAIT_MS}) for a chunk the helper is still on, and the caller
 * checks anything left without a status itself, so a busy, slow or stopped
 * helper costs no more than checking alone. It declines fewer than
 * {@link SHARE_CHECK_FROM} folders, or any while the helper is not ready;
 * undefined without a helper.
 *
 * @example
 * ```ts
 * import { FileIndex, WalkTrail } from "./file_index.ts";
 * import { checkListings, startWalkHelper, stopWalkHelper } from "./walk_helper.ts";
 * await startWalkHelper()?.whenReady;
 * const dir = Deno.makeTempDirSync();
 * const index = new FileIndex();
 * const trail = new WalkTrail();
 * index.walk(dir, { trail, onFile: () => {} });
 * await new Promise((r) => setTimeout(r, 1100)); // past the window in which a folder counts as changed
 * index.remember("k", dir, trail, "answer");
 * console.assert(index.recall("k", dir, checkListings()).hit);
 * Deno.removeSync(dir, { recursive: true });
 * await stopWalkHelper();
 * ```
 */
export function checkListings(helper: CheckHelper | undefined = walkHelper()): ListingCheck | undefined {
  if (!helper) return undefined;
  return (dirs, nodes, count) => {
    if (count < SHARE_CHECK_FROM || !helper.ready) return undefined;
    const readAt = new Float64Array(count);
    const ignoreFiles = new Map<number, readonly string[]>();
    for (let i = 0; i < count; i++) {
      const node = nodes[i];
      readAt[i] = node.readAt;
      if (node.ignoreFiles.length) ignoreFiles.set(i, node.ignoreFiles);
    }
    const job: CheckJob = {
      kind: "check",
      dirs: count === dirs.length ? dirs : dirs.slice(0, count),
      readAt,
      ignoreFiles,
      chunk: CHECK_CHUNK,
      ctrl: new SharedArrayBuffer(12),
      status: new SharedArrayBuffer(count),
    };
    helper.postCheck(job);
    checkClaimed(job, false);
    // the helper may still be on a chunk it claimed: wait for it, up to a limit
    const ctrl = new Int32Array(job.ctrl);
    waitForHelper(ctrl);
    helper.chunksChecked += Atomics.load(ctrl, 2);
    return new Uint8Array(job.status);
  };
}

/**
 * A {@link MtimeStatter} that stats on this thread and the helper thread at
 * once, as {@link checkListings} checks folders: a warm Glob call with a new
 * pattern has a stat to make per match, and starting a thread for them would
 * cost more than most calls. This thread waits at most {@link CHECK_WAIT_MS}
 * for a chunk the helper took and stats what is left itself. It declines
 * fewer than {@link SHARE_STAT_FROM} paths, or any while the helper is not
 * ready; undefined without a helper.
 *
 * @example
 * ```ts
 * import { shareMtimes, startWalkHelper, stopWalkHelper } from "./walk_helper.ts";
 * await startWalkHelper()?.whenReady;
 * const times = shareMtimes()!(Array(600).fill(Deno.execPath()));
 * console.assert(times !== undefined && times.every((t) => t > 0));
 * await stopWalkHelper();
 * ```
 */
export function shareMtimes(helper: CheckHelper | undefined = walkHelper()): MtimeStatter | undefined {
  if (!helper) return undefined;
  return (paths) => {
    if (paths.length < SHARE_STAT_FROM || !helper.ready) return undefined;
    const job: MtimeJob = {
      kind: "mtimes",
      paths,
      chunk: STAT_CHUNK,
      ctrl: new SharedArrayBuffer(12),
      times: new SharedArrayBuffer(paths.length * 8),
      done: new SharedArrayBuffer(paths.length),
    };
    helper.postCheck(job);
    statClaimed(job, false);
    const ctrl = new Int32Array(job.ctrl);
    waitForHelper(ctrl);
    helper.chunksChecked += Atomics.load(ctrl, 2);
    const times = new Float64Array(job.times);
    const done = new Uint8Array(job.done);
    const out = new Float64Array(paths.length);
    for (let i = 0; i < paths.length; i++) {
      out[i] = Atomics.load(done, i) === 1 ? times[i] : mtimeOf(paths[i]);
    }
    return out;
  };
}

/** Waits (at most {@link CHECK_WAIT_MS}) until the helper finished every chunk it claimed in a shared job. */
function waitForHelper(ctrl: Int32Array): void {
  const until = performance.now() + CHECK_WAIT_MS;
  for (;;) {
    const finished = Atomics.load(ctrl, 2);
    if (finished >= Atomics.load(ctrl, 1)) return;
    const left = until - performance.now();
    if (left <= 0) return;
    Atomics.wait(ctrl, 2, finished, left);
  }
}

/** Puts the helper's folders into the index and hands their kept files on. */
function adopt(job: SharedWalkState, folders: WalkedFolder[], unreadable: string[]): void {
  for (const dir of unreadable) job.trail?.add(dir, undefined);
  for (const f of folders) {
    const node: DirNode = {
      readAt: f.readAt,
      packedFiles: f.packedFiles,
      fileCount: f.fileCount,
      dirs: f.dirs,
      hasGit: f.hasGit,
      ignoreFiles: f.ignoreFiles,
      fileMtimes: f.mtimes,
    };
    job.index.adopt(f.dir, node);
    job.trail?.add(f.dir, node);
    for (let j = 0; j < f.hits.length; j++) job.onFile(f.rel, f.hitNames[j], node, f.hits[j], f.dir);
  }
}

/**
 * Walks like {@link FileIndex.walkAsync}, sharing a cold walk with the helper
 * thread when there is one (see the module notes). `onFile` may be called in
 * any folder order and must not stop the walk. False when the signal fired.
 */
export async function sharedWalk(
  index: FileIndex,
  root: string,
  options: SharedWalkOptions,
): Promise<boolean> {
  const { signal } = options;
  const helper = options.helper === null ? undefined : options.helper ?? walkHelper();
  if (!helper?.ready) return await index.walkAsync(root, options);
  const start = index.startFrame(root, options);
  if (!start) return true;
  const slice = options.sliceMs ?? 20;
  let yieldAt = performance.now() + slice;
  /** A turn of the event loop (an abort lands, the helper's parts come in); false when the signal fired. */
  const turn = async (): Promise<boolean> => {
    await new Promise((resolve) => setImmediate(resolve));
    yieldAt = performance.now() + slice;
    return !signal?.aborted;
  };
  const walkHere = async (frame: WalkFrame, how: WalkOptions): Promise<boolean> => {
    const stack = [frame];
    while (stack.length) {
      index.visit(root, stack.pop()!, how, stack);
      if (performance.now() >= yieldAt && !(await turn())) return false;
    }
    return true;
  };
  // warm: the index is faster alone (from the start frame found above: its folders are statted once),
  // with the folders it knows checked ahead on both threads
  if (index.peek(start.dir)) {
    const check = checkListings(helper)!;
    const fresh = index.checkAhead(start, check, { maxDepth: options.maxDepth, fresh: options.fresh });
    return await walkHere(start, fresh ? { ...options, fresh } : options);
  }
  // breadth-first until there is enough to share
  const queue: WalkFrame[] = [start];
  let head = 0;
  while (head < queue.length && queue.length - head < SHARE_TARGET) {
    index.visit(root, queue[head++], options, queue);
    if (performance.now() >= yieldAt && !(await turn())) return false;
  }
  const frames = queue.slice(head);
  if (frames.length < SHARE_FROM || !helper.ready) {
    for (const f of frames) if (!(await walkHere(f, options))) return false;
    return true;
  }
  // shared: each thread stats what it finds, so the stats are split as the folders are
  const onFile: WalkOptions["onFile"] = options.statKept
    ? (relDir, name, node, k, dir) => {
      index.fileMtime(dir, node, k, name);
      return options.onFile(relDir, name, node, k, dir);
    }
    : options.onFile;
  const opts: WalkOptions = { ...options, onFile };
  const id = helper.nextId();
  const claimsBuffer = new SharedArrayBuffer(8);
  const claims = new Int32Array(claimsBuffer);
  const job: SharedWalkState = { index, onFile, trail: options.trail, reported: new Set(), ended: false };
  helper.post(id, job, {
    kind: "walk",
    id,
    root,
    frames,
    respectIgnore: options.respectIgnore ?? true,
    maxDepth: options.maxDepth ?? Infinity,
    pattern: options.pattern,
    claims: claimsBuffer,
    hold: options.hold,
  });
  const wake = () => job.wake?.();
  signal?.addEventListener("abort", wake);
  try {
    const mine = new Set<number>();
    while (!options.helperOnly) {
      const i = Atomics.add(claims, 0, 1);
      if (i >= frames.length) break;
      mine.add(i);
      if (!(await walkHere(frames[i], opts))) return false;
    }
    const theirs = frames.length - mine.size;
    while (job.reported.size < theirs && !job.ended) {
      await new Promise<void>((resolve) => job.wake = resolve);
      if (signal?.aborted) return false;
    }
    // the helper failed part-way: walk what it did not report
    for (let i = 0; i < frames.length; i++) {
      if (!mine.has(i) && !job.reported.has(i) && !(await walkHere(frames[i], opts))) return false;
    }
    return true;
  } finally {
    Atomics.store(claims, 1, 1); // stops the helper on this job, if it is still at it
    signal?.removeEventListener("abort", wake);
    helper.done(id);
  }
}

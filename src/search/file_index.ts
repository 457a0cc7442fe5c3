/**
 * A warm file index: folder listings cached per session and revalidated on
 * every later walk by one `stat` per folder. Creating, deleting or renaming a
 * file sets its folder's mtime and ctime to now, so a listing is trusted only
 * when both are older than the moment it was read (minus
 * {@link RACY_WINDOW_MS}, as file-system clocks are coarse); otherwise the
 * folder is read again. ctime, unlike mtime, cannot be set back by `touch` or
 * `tar`; Deno reports it in whole seconds, so it is taken as the end of its
 * second, and a folder changed in the second before it was read is read once
 * more on the next walk. Ignore files edited in place leave their folder
 * alone, so they are statted too (with a repository's `.git/info/exclude`,
 * when it exists). The first walk needs no stat at all: a `readDir` per
 * folder.
 *
 * Not tracked: a file's own mtime after it was first statted (an in-place
 * edit keeps the folder's ctime), so Glob's newest-first order can lag for
 * files rewritten in place; files written by rename (editors, Paddock's
 * Write and Edit) do change the folder.
 *
 * A walk can also be remembered with what came of it ({@link FileIndex.remember}):
 * the next time, one stat per folder it read shows whether the same walk
 * would give the same result ({@link FileIndex.recall}), without walking.
 *
 * Walks never follow symlinks (as ripgrep), skip `.git`, and apply ignore
 * files (see `ignore.ts`) unless told not to.
 *
 * A folder's file names are kept as one string ({@link DirNode.packedFiles}),
 * split only when a later walk matches them, and kept split from then on:
 * the index a first walk of a 200k-file tree leaves takes 9.6 MB of heap
 * instead of 16.3 MB, and the garbage collector, which copies what the index
 * keeps while it is young, spent a quarter less time on that walk. The
 * second walk with a new pattern pays the split once.
 *
 * The stats of a warm walk can be shared with another thread: {@link FileIndex.recall}
 * and {@link FileIndex.checkAhead} take a {@link ListingCheck} (`walk_helper.ts`
 * has the one that uses the walk helper thread).
 *
 * @module
 */
import { dirname, join } from "node:path";
import { setImmediate } from "node:timers";
import { IGNORE_FILES, type IgnoreLayer, ignoreLayer, isIgnored, readsFilePath } from "./ignore.ts";
import { claimChunks, mtimeOf } from "./stat_claims.ts";

/** Work done by {@link FileIndex.walkAsync} between turns of the event loop (ms). */
export const WALK_SLICE_MS = 20;

/** A folder changed less than this long before it was read is read again next time (ms). */
export const RACY_WINDOW_MS = 50;

/** Patterns whose matches a folder's listing keeps (the oldest go first). */
export const MATCHES_KEPT = 8;

/** Walk results a {@link FileIndex} remembers (the least recently used go first). */
export const MEMO_LIMIT = 32;

/**
 * Folders the remembered walks may name in all: a memory holds the listings
 * its walk read until it is dropped, even those the index has since replaced,
 * so this keeps that to about one big tree's worth.
 */
export const MEMO_FOLDERS = 100_000;

/** One cached folder. */
export interface DirNode {
  /** When the folder was read (ms since the epoch, taken before reading). */
  readonly readAt: number;
  /**
   * Regular files (symlinks left out): their names joined by `/`, which no
   * name holds; {@link filesOf} splits them. Index `k` of a file is its place here.
   */
  readonly packedFiles: string;
  /** How many regular files. */
  readonly fileCount: number;
  /** Subfolders (symlinks left out). */
  readonly dirs: readonly string[];
  /** The file names split from {@link packedFiles}, kept from the first walk that split them. */
  files?: readonly string[];
  /** File mtimes (ms), made and filled on demand; NaN when not known yet. */
  fileMtimes?: Float64Array;
  /** Whether the folder holds `.git` (the root of a repository). */
  readonly hasGit: boolean;
  /** Ignore files present (`.gitignore`, `.ignore`, `.rgignore`, and `.git/info/exclude` in a repository's root). */
  readonly ignoreFiles: readonly string[];
  /** Rules without and with `.gitignore` (built on first use). */
  layers?: [IgnoreLayer[] | undefined, IgnoreLayer[] | undefined];
  /** Files that passed a keyed match, per key, with the folder's path from the walk's root and the ignore chain they were checked against. */
  matches?: Map<string, { rel: string; chain: readonly IgnoreLayer[]; hits: readonly number[] }>;
  /** The subfolders a walk goes on to (made on first use for a chain and a path from the root). */
  kids?: Kids;
  /** The ignore chain and repository flag inside the folder, for the chain it was entered with. */
  entered?: {
    from: readonly IgnoreLayer[];
    fromGit: boolean;
    inside: { chain: IgnoreLayer[]; inGit: boolean };
  };
}

/**
 * A folder's subfolders to walk (ignore rules applied, `.git` left out) with
 * their absolute and relative paths: the same strings walk after walk, so
 * looking them up costs no hashing.
 */
export interface Kids {
  /** The chain the rules were applied with (undefined: none applied). */
  readonly chain: readonly IgnoreLayer[] | undefined;
  /** The folder's path from the walk's root. */
  readonly rel: string;
  /** Subfolder names. */
  readonly names: readonly string[];
  /** Their absolute paths. */
  readonly abs: readonly string[];
  /** Their paths from the walk's root. */
  readonly rels: readonly string[];
}

/** Where a walk stands on entering a folder. */
export interface WalkFrame {
  /** Absolute folder. */
  readonly dir: string;
  /** Its path from the walk's root, `/`-separated (`""` for the root). */
  readonly rel: string;
  /** Ignore layers in force above it, shallowest first. */
  readonly chain: IgnoreLayer[];
  /** Whether a folder above it is a git repository. */
  readonly inGit: boolean;
  /** Folder level below the root. */
  readonly depth: number;
}

/** Options of {@link FileIndex.walk}. */
export interface WalkOptions {
  /** Apply `.gitignore`, `.ignore` and `.rgignore`. Default true. */
  respectIgnore?: boolean;
  /** Literal folders (relative, `/`-separated) to descend before walking. */
  prefix?: string;
  /** Deepest folder level to list files from (0 = the root's own files). Default: no limit. */
  maxDepth?: number;
  /** Stops the walk. */
  signal?: AbortSignal;
  /** Folders to leave out (path relative to the root, and name). */
  skipDir?: (rel: string, name: string) => boolean;
  /**
   * Decides a file before the ignore rules (rg's `--glob` overrides): true keeps
   * it even when ignored, false drops it, undefined leaves it to the rules.
   */
  fileOverride?: (rel: string, name: string) => boolean | undefined;
  /**
   * Tests each file (folder path relative to the root, `""` at the root, and
   * name). With a `key`, the files of an unchanged folder that passed are
   * remembered and not tested again on the next walk with the same key.
   */
  match?: { key?: string; test: (relDir: string, name: string) => boolean };
  /** Called for each file that is kept; return false to stop. */
  onFile: (relDir: string, name: string, node: DirNode, index: number, dir: string) => boolean | void;
  /** Records every folder the walk reads, for {@link FileIndex.remember}. */
  trail?: WalkTrail;
  /** Listings revalidated earlier in the same call (by a failed {@link FileIndex.recall}): not statted again. */
  fresh?: ReadonlySet<DirNode>;
}

/**
 * The folders one walk read, in order, with the listings it used (undefined
 * where a folder could not be read): pass it as {@link WalkOptions.trail}.
 */
export class WalkTrail {
  /** Absolute folders. */
  readonly dirs: string[] = [];
  /** Their listings, as the walk used them. */
  readonly nodes: Array<DirNode | undefined> = [];
  /** The ignore rules from above the root that the walk applied. */
  above: object | undefined;

  /** Notes one folder. */
  add(dir: string, node: DirNode | undefined): void {
    this.dirs.push(dir);
    this.nodes.push(node);
  }
}

/** What {@link FileIndex.recall} found. */
export type Recalled<T> =
  | { hit: true; value: T }
  | {
    hit: false;
    /** The listings it revalidated before it found a change: pass as {@link WalkOptions.fresh}. */
    fresh: ReadonlySet<DirNode>;
  };

/**
 * Checks, on more than one thread, whether the folders of the first `count`
 * listings are unchanged since they were read: see {@link ListingChecks} and
 * `walk_helper.ts`'s `checkListings`. Returns one status per listing:
 * {@link LISTING_UNCHANGED}, {@link LISTING_CHANGED}, or 0 where no thread
 * got to it (the caller checks those itself); undefined when too few to
 * share, and the caller checks them all as it would without.
 */
export type ListingCheck = (
  dirs: readonly string[],
  nodes: readonly DirNode[],
  count: number,
) => Uint8Array | undefined;

/** Status of a listing whose folder (and ignore files) did not change. */
export const LISTING_UNCHANGED = 1;
/** Status of a listing whose folder (or an ignore file in it) changed, or cannot be statted. */
export const LISTING_CHANGED = 2;

/**
 * The folder checks of one {@link ListingCheck}, as shared between threads:
 * each thread claims {@link ListingChecks.chunk} listings at a time from
 * `ctrl[0]` and writes their statuses, all of them even after a change (the
 * walk that follows a change needs them); the helper counts the chunks it
 * claimed and finished in `ctrl[1]` and `ctrl[2]` (see {@link checkClaimed}).
 */
export interface ListingChecks {
  /** Absolute folders. */
  dirs: readonly string[];
  /** When each listing was read (ms since the epoch, as {@link DirNode.readAt}). */
  readAt: Float64Array;
  /** Ignore files to check beside the folder, by index (most folders have none). */
  ignoreFiles: ReadonlyMap<number, readonly string[]>;
  /** Listings per claim. */
  chunk: number;
  /** Int32 [next chunk, chunks the helper claimed, chunks the helper finished]. */
  ctrl: SharedArrayBuffer;
  /** Uint8 status per listing. */
  status: SharedArrayBuffer;
}

/**
 * Checks the listings this thread claims (see {@link ListingChecks}) until
 * none is left; `helper` counts its chunks for the thread that waits on it.
 */
export function checkClaimed(job: ListingChecks, helper: boolean): void {
  const status = new Uint8Array(job.status);
  const { dirs, readAt, ignoreFiles } = job;
  claimChunks(new Int32Array(job.ctrl), dirs.length, job.chunk, helper, (from, to) => {
    for (let i = from; i < to; i++) {
      const same = unchangedSince(dirs[i], readAt[i], ignoreFiles.get(i) ?? NO_NAMES);
      Atomics.store(status, i, same ? LISTING_UNCHANGED : LISTING_CHANGED);
    }
  });
}

/**
 * Folder listings cached across walks.
 *
 * @example
 * ```ts
 * import { FileIndex } from "./file_index.ts";
 * const dir = Deno.makeTempDirSync();
 * Deno.writeTextFileSync(`${dir}/a.txt`, "x");
 * const index = new FileIndex();
 * const seen: string[] = [];
 * index.walk(dir, { onFile: (_relDir, name) => void seen.push(name) });
 * console.assert(seen.join() === "a.txt");
 * Deno.removeSync(dir, { recursive: true });
 * ```
 */
export class FileIndex {
  #nodes = new Map<string, DirNode>();
  #memoLimit: number;
  #memoFoldersLimit: number;
  /** Folders read (not served from cache) since creation, for tests and benchmarks. */
  reads = 0;
  /** Calls {@link recall} answered from memory, for tests and benchmarks. */
  recalled = 0;

  /**
   * `memos`: walk results remembered at most (default {@link MEMO_LIMIT});
   * `memoFolders`: folders their walks may name in all (default {@link MEMO_FOLDERS}).
   */
  constructor(options: { memos?: number; memoFolders?: number } = {}) {
    this.#memoLimit = options.memos ?? MEMO_LIMIT;
    this.#memoFoldersLimit = options.memoFolders ?? MEMO_FOLDERS;
  }

  /** The listing of `dir`, revalidated (unless in `fresh`); undefined when it cannot be read. */
  node(dir: string, fresh?: ReadonlySet<DirNode>): DirNode | undefined {
    const cached = this.#nodes.get(dir);
    if (cached && (fresh?.has(cached) || unchanged(dir, cached))) return cached;
    const read = readNode(dir);
    this.reads++;
    this.#justRead = read;
    if (read) this.#nodes.set(dir, read.node);
    else this.#nodes.delete(dir);
    return read?.node;
  }

  /** The folder read last, with its file names as read (so a walk need not split them again). */
  #justRead: { node: DirNode; files: string[] } | undefined;

  /** The file names of `node`, from the read that made it when that was the last one. */
  #filesOf(node: DirNode): readonly string[] {
    const read = this.#justRead;
    if (read?.node !== node) return node.files ??= filesOf(node);
    this.#justRead = undefined;
    return read.files;
  }

  /** Forgets the listing of `dir` (a helper thread's index keeps none it has handed on). */
  drop(dir: string): void {
    this.#nodes.delete(dir);
  }

  /** The cached listing of `dir` as it stands, without revalidating it. */
  peek(dir: string): DirNode | undefined {
    return this.#nodes.get(dir);
  }

  /** The mtime (ms) of file `i` of a node, named `name`: statted once and then cached. */
  fileMtime(dir: string, node: DirNode, i: number, name: string): number {
    const times = node.fileMtimes ??= new Float64Array(node.fileCount).fill(NaN);
    let m = times[i];
    if (Number.isNaN(m)) m = times[i] = mtimeOf(`${dir}/${name}`);
    return m;
  }

  /** Walks `root`'s files; returns false when `onFile` stopped it or the signal fired. */
  walk(root: string, options: WalkOptions): boolean {
    const steps = this.#steps(root, options);
    for (;;) {
      const r = steps.next();
      if (r.done) return r.value;
    }
  }

  /**
   * {@link walk}, giving the event loop a turn every `sliceMs` of work (default
   * {@link WALK_SLICE_MS}) so that an abort can land mid-walk.
   */
  async walkAsync(root: string, options: WalkOptions & { sliceMs?: number }): Promise<boolean> {
    const slice = options.sliceMs ?? WALK_SLICE_MS;
    const steps = this.#steps(root, options);
    let yieldAt = performance.now() + slice;
    for (;;) {
      const r = steps.next();
      if (r.done) return r.value;
      if (performance.now() < yieldAt) continue;
      // setImmediate, not setTimeout(0): a turn of the loop (due timers and I/O
      // run, so an abort lands) for ~0.03 ms instead of the ~2 ms a timer costs
      await new Promise((resolve) => setImmediate(resolve));
      if (options.signal?.aborted) {
        steps.return(false);
        return false;
      }
      yieldAt = performance.now() + slice;
    }
  }

  /** The walk, pausing (yielding) every 64 folders. */
  *#steps(root: string, options: WalkOptions): Generator<void, boolean> {
    const start = this.startFrame(root, options);
    if (!start) return true;
    const stack: WalkFrame[] = [start];
    let visited = 0;
    while (stack.length) {
      if ((++visited & 63) === 0) {
        yield;
        if (options.signal?.aborted) return false;
      }
      const frame = stack.pop()!;
      if (!this.visit(root, frame, options, stack)) return false;
    }
    return true;
  }

  /**
   * Where a walk of `root` starts: the root, or the folder its literal
   * `prefix` names, with the ignore rules that apply there. Undefined when
   * the prefix is missing, ignored or goes through `.git`.
   */
  startFrame(root: string, options: WalkOptions): WalkFrame | undefined {
    const respect = options.respectIgnore ?? true;
    const up = respect ? this.#ancestors(root) : { chain: [], inGit: false };
    const { trail, fresh } = options;
    if (trail && respect) trail.above = up;
    let start: WalkFrame = { dir: root, rel: "", chain: up.chain, inGit: up.inGit, depth: 0 };
    for (const seg of options.prefix ? options.prefix.split("/").filter((s) => s && s !== ".") : []) {
      const node = this.node(start.dir, fresh);
      trail?.add(start.dir, node);
      if (!node || !node.dirs.includes(seg) || seg === ".git") return undefined;
      const f = this.#enter(start, node, respect);
      const abs = join(start.dir, seg);
      if (respect && isIgnored(f.chain, abs, seg, true)) return undefined;
      start = { ...f, dir: abs, rel: start.rel ? `${start.rel}/${seg}` : seg, depth: start.depth + 1 };
    }
    return start;
  }

  /**
   * One folder of a walk of `root`: hands its kept files to `onFile` and
   * pushes the subfolders to walk onto `next`. False when `onFile` said stop.
   */
  visit(root: string, frame: WalkFrame, options: WalkOptions, next: WalkFrame[]): boolean {
    const node = this.node(frame.dir, options.fresh);
    options.trail?.add(frame.dir, node);
    if (!node) return true;
    const respect = options.respectIgnore ?? true;
    const { match, fileOverride: override, onFile, skipDir } = options;
    const f = this.#enter(frame, node, respect);
    const checks = respect && f.chain.length > 0;
    const files = this.#filesOf(node);
    // one key string per walk (its hash is computed once); the folder's path is checked apart
    const key = match?.key !== undefined && !override ? this.#matchKey(match.key, respect, root) : undefined;
    const cached = key === undefined ? undefined : node.matches?.get(key);
    if (cached && cached.rel === frame.rel && sameChain(cached.chain, f.chain)) {
      for (const i of cached.hits) {
        if (onFile(frame.rel, files[i], node, i, frame.dir) === false) return false;
      }
    } else {
      const hits: number[] = [];
      const withPath = checks && readsFilePath(f.chain);
      for (let i = 0; i < files.length; i++) {
        const name = files[i];
        const decided = override?.(frame.rel ? `${frame.rel}/${name}` : name, name);
        if (decided === false) continue;
        // the match first: it is cheaper than the ignore rules and rejects most files
        if (match && !match.test(frame.rel, name)) continue;
        if (
          decided !== true && checks &&
          isIgnored(f.chain, withPath ? `${frame.dir}/${name}` : "", name, false)
        ) {
          continue;
        }
        hits.push(i);
        if (onFile(frame.rel, name, node, i, frame.dir) === false) return false;
      }
      if (key !== undefined) {
        const kept = hits.length ? hits : NO_HITS;
        const matches = node.matches ??= new Map();
        if (matches.size >= MATCHES_KEPT) matches.delete(matches.keys().next().value!);
        matches.set(key, { rel: frame.rel, chain: f.chain, hits: kept });
      }
    }
    if (frame.depth >= (options.maxDepth ?? Infinity)) return true;
    const chain = checks ? f.chain : undefined;
    let kids = node.kids;
    if (
      !kids || kids.rel !== frame.rel ||
      !(kids.chain === chain || (chain && kids.chain && sameChain(kids.chain, chain)))
    ) {
      kids = node.kids = kidsOf(frame, node.dirs, chain);
    }
    const { names, abs, rels } = kids;
    const depth = frame.depth + 1;
    for (let i = 0; i < names.length; i++) {
      if (skipDir?.(rels[i], names[i])) continue;
      next.push({ dir: abs[i], rel: rels[i], chain: f.chain, inGit: f.inGit, depth });
    }
    return true;
  }

  /**
   * Checks ahead of a warm walk from `start`, with `check` (which may share
   * the stats with another thread), the listings the walk would use if
   * nothing had changed: followed through the index without a stat, down to
   * `maxDepth`. Returns the listings found unchanged (with those in `fresh`),
   * to pass as {@link WalkOptions.fresh}; the walk then stats only the rest.
   * Undefined when `check` declined (too few to share).
   */
  checkAhead(
    start: WalkFrame,
    check: ListingCheck,
    options: { maxDepth?: number; fresh?: ReadonlySet<DirNode> } = {},
  ): ReadonlySet<DirNode> | undefined {
    const { fresh } = options;
    const maxDepth = options.maxDepth ?? Infinity;
    const dirs: string[] = [];
    const nodes: DirNode[] = [];
    const stack: string[] = [start.dir];
    const depths: number[] = [start.depth];
    while (stack.length) {
      const dir = stack.pop()!;
      const depth = depths.pop()!;
      const node = this.#nodes.get(dir);
      if (!node) continue;
      if (!fresh?.has(node)) {
        dirs.push(dir);
        nodes.push(node);
      }
      if (depth >= maxDepth) continue;
      // the subfolders the last walk went on to, else all of them: a guess either way, as the walk decides
      const kids = node.kids?.abs ?? node.dirs.filter((d) => d !== ".git").map((d) => `${dir}/${d}`);
      for (const kid of kids) {
        stack.push(kid);
        depths.push(depth + 1);
      }
    }
    const status = check(dirs, nodes, dirs.length);
    if (!status) return undefined;
    const checked = new Set<DirNode>(fresh);
    for (let i = 0; i < nodes.length; i++) if (status[i] === LISTING_UNCHANGED) checked.add(nodes[i]);
    return checked;
  }

  /**
   * Takes a folder listing read elsewhere (a helper thread) as if read here,
   * with the mtimes known for some of its files (NaN for the others).
   */
  adopt(dir: string, node: DirNode): void {
    this.#nodes.set(dir, node);
    this.reads++;
  }

  /**
   * Takes the listings `other` read that this index lacks (listings are
   * revalidated on use, so any read is as good as this index's own); returns
   * how many it took.
   */
  absorb(other: FileIndex): number {
    let taken = 0;
    for (const [dir, node] of other.#nodes) {
      if (this.#nodes.has(dir)) continue;
      this.#nodes.set(dir, node);
      taken++;
    }
    return taken;
  }

  /** Folders in the index. */
  get size(): number {
    return this.#nodes.size;
  }

  #memos = new Map<string, { trail: WalkTrail; value: unknown }>();
  #memoFolders = 0;

  /**
   * Remembers `value`, what came of a walk of `root` that recorded `trail`,
   * under `key` (which must name everything else the value depends on). Give
   * only the trail of a walk that ran to its end.
   */
  remember(key: string, root: string, trail: WalkTrail, value: unknown): void {
    const k = `${root}\0${key}`;
    this.#forget(k);
    if (trail.dirs.length > this.#memoFoldersLimit) return;
    this.#memos.set(k, { trail, value });
    this.#memoFolders += trail.dirs.length;
    while (this.#memos.size > this.#memoLimit || this.#memoFolders > this.#memoFoldersLimit) {
      this.#forget(this.#memos.keys().next().value!); // the least recently used
    }
  }

  /**
   * The value remembered under `key` for `root`, when every folder its walk
   * read (and the ignore files above the root) is unchanged: one stat each,
   * and then the same walk would read the same listings, so it would come to
   * the same result. Otherwise the listings found unchanged so far, for the
   * walk that must run instead.
   */
  recall<T>(key: string, root: string, check?: ListingCheck): Recalled<T> {
    const k = `${root}\0${key}`;
    const memo = this.#memos.get(k);
    if (!memo) return { hit: false, fresh: new Set() };
    const { dirs, nodes, above } = memo.trail;
    const rulesAbove = above === undefined || this.#ancestors(root) === above;
    let i = 0;
    let fresh: Set<DirNode> | undefined; // listings checked in this call
    if (rulesAbove && check) {
      // the leading listings the index still holds go to the shared check; the rest, and
      // whatever it did not find unchanged, are checked below as without it
      let count = 0;
      while (
        count < dirs.length && nodes[count] !== undefined && this.#nodes.get(dirs[count]) === nodes[count]
      ) {
        count++;
      }
      const status = check(dirs, nodes as readonly DirNode[], count) ?? NO_STATUS;
      while (i < status.length && status[i] === LISTING_UNCHANGED) i++;
      if (i < status.length) {
        fresh = new Set();
        for (let j = i + 1; j < status.length; j++) if (status[j] === LISTING_UNCHANGED) fresh.add(nodes[j]!);
      }
    }
    while (rulesAbove && i < dirs.length && this.node(dirs[i], fresh) === nodes[i]) i++;
    if (!rulesAbove || i < dirs.length) {
      this.#forget(k);
      fresh ??= new Set<DirNode>();
      for (let j = 0; j < i; j++) if (nodes[j]) fresh.add(nodes[j]!);
      return { hit: false, fresh };
    }
    this.#memos.delete(k); // most recently used last
    this.#memos.set(k, memo);
    this.recalled++;
    return { hit: true, value: memo.value as T };
  }

  #forget(k: string): void {
    const memo = this.#memos.get(k);
    if (!memo) return;
    this.#memos.delete(k);
    this.#memoFolders -= memo.trail.dirs.length;
  }

  #lastKey?: { key: string; respect: boolean; root: string; value: string };

  /** The match-cache key of a walk: the same string object folder after folder, so its hash is kept. */
  #matchKey(key: string, respect: boolean, root: string): string {
    const last = this.#lastKey;
    if (last && last.key === key && last.respect === respect && last.root === root) return last.value;
    this.#lastKey = { key, respect, root, value: `${key}\0${respect}\0${root}` };
    return this.#lastKey.value;
  }

  #above = new Map<string, Ancestors>();

  /** The ignore layers above `root`, cached while no folder above it (nor its ignore files) changes. */
  #ancestors(root: string): Ancestors {
    const cached = this.#above.get(root);
    if (cached) {
      const limit = cached.readAt - RACY_WINDOW_MS;
      if (cached.watch.every((p) => changeTime(p) < limit)) return cached;
    }
    const fresh = ancestorLayers(root, cached);
    this.#above.set(root, fresh);
    return fresh;
  }

  #enter(frame: { dir: string; chain: IgnoreLayer[]; inGit: boolean }, node: DirNode, respect: boolean): {
    chain: IgnoreLayer[];
    inGit: boolean;
  } {
    if (!respect) return frame;
    // the same chain object walk after walk, so the caches keyed by it compare in one step
    const e = node.entered;
    if (e && e.from === frame.chain && e.fromGit === frame.inGit) return e.inside;
    let chain = frame.chain;
    // a repository root: the .gitignore files above it stop applying (as in rg)
    if (node.hasGit && chain.some((l) => l.git)) chain = chain.filter((l) => !l.git);
    const inGit = frame.inGit || node.hasGit;
    const layers = layersOf(frame.dir, node, inGit);
    if (layers.length) chain = [...chain, ...layers];
    node.entered = { from: frame.chain, fromGit: frame.inGit, inside: { chain, inGit } };
    return node.entered.inside;
  }
}

const NO_HITS: readonly number[] = [];
const NO_NAMES: readonly string[] = [];
const NO_STATUS = new Uint8Array(0);

function sameChain(a: readonly IgnoreLayer[], b: readonly IgnoreLayer[]): boolean {
  if (a === b) return true;
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

/** The subfolders a walk in `frame` goes on to, with the `chain`'s rules applied (if given). */
function kidsOf(frame: WalkFrame, dirs: readonly string[], chain: IgnoreLayer[] | undefined): Kids {
  const names = dirs.filter((name) =>
    name !== ".git" && !(chain && isIgnored(chain, `${frame.dir}/${name}`, name, true))
  );
  return {
    chain,
    rel: frame.rel,
    names,
    abs: names.map((name) => `${frame.dir}/${name}`),
    rels: names.map((name) => frame.rel ? `${frame.rel}/${name}` : name),
  };
}

/**
 * The file names of a folder's listing, in index order.
 *
 * @example
 * ```ts
 * import { FileIndex, filesOf } from "./file_index.ts";
 * const dir = Deno.makeTempDirSync();
 * Deno.writeTextFileSync(`${dir}/a.txt`, "x");
 * console.assert(filesOf(new FileIndex().node(dir)!).join() === "a.txt");
 * Deno.removeSync(dir, { recursive: true });
 * ```
 */
export function filesOf(node: DirNode): string[] {
  return node.fileCount ? node.packedFiles.split("/") : [];
}

/** Reads a folder: its node, and its file names as read. */
function readNode(dir: string): { node: DirNode; files: string[] } | undefined {
  const readAt = Date.now();
  const files: string[] = [];
  const dirs: string[] = [];
  let hasGit = false;
  let gitDir = false; // `.git` is a folder, not a worktree's pointer file
  const ignoreFiles: string[] = [];
  try {
    for (const e of Deno.readDirSync(dir)) {
      if (e.isFile) {
        if (e.name === ".git") {
          hasGit = true; // a worktree's or submodule's pointer file
          continue;
        }
        files.push(e.name);
        if (e.name.charCodeAt(0) === 46 && IGNORE_FILES.includes(e.name)) ignoreFiles.push(e.name);
      } else if (e.isDirectory) {
        dirs.push(e.name);
        if (e.name === ".git") hasGit = gitDir = true;
      }
    }
  } catch {
    return undefined;
  }
  // a repository's own exclude file is watched like the ignore files (when it is there to watch)
  if (gitDir && exists(join(dir, GIT_EXCLUDE))) ignoreFiles.push(GIT_EXCLUDE);
  const node = { readAt, packedFiles: files.join("/"), fileCount: files.length, dirs, hasGit, ignoreFiles };
  return { node, files };
}

/** A repository's exclude file, relative to its root. */
const GIT_EXCLUDE = ".git/info/exclude";

/** Whether the folder (and its ignore files) changed since the node was read. */
function unchanged(dir: string, node: DirNode): boolean {
  return unchangedSince(dir, node.readAt, node.ignoreFiles);
}

/** Whether the folder (and the named ignore files in it) changed since `readAt`, the racy window aside. */
function unchangedSince(dir: string, readAt: number, ignoreFiles: readonly string[]): boolean {
  const limit = readAt - RACY_WINDOW_MS;
  if (!(changeTime(dir) < limit)) return false;
  for (const name of ignoreFiles) if (!(changeTime(join(dir, name)) < limit)) return false;
  return true;
}

/**
 * The latest the path can have changed (ms): its ctime, which `touch` or
 * `tar` cannot set back (or its mtime, if later); NaN when it cannot be statted.
 */
function changeTime(path: string): number {
  try {
    const info = Deno.statSync(path);
    const mtime = info.mtime?.getTime() ?? NaN;
    const ctime = info.ctime?.getTime();
    if (ctime === undefined) return mtime;
    // Deno gives ctime in whole seconds: the change may have come up to a second later
    return Math.max(mtime, ctime % 1000 === 0 ? ctime + 999 : ctime);
  } catch {
    return NaN;
  }
}

function layersOf(dir: string, node: DirNode, inGit: boolean): IgnoreLayer[] {
  if (node.ignoreFiles.length === 0 && !node.hasGit) return [];
  node.layers ??= [undefined, undefined];
  const k = inGit ? 1 : 0;
  return node.layers[k] ??= buildLayers(dir, node.ignoreFiles, inGit, node.hasGit);
}

/** The layers of one folder: git's (`.git/info/exclude`, `.gitignore`) below the others (`.ignore`, `.rgignore`). */
function buildLayers(
  dir: string,
  present: readonly string[],
  inGit: boolean,
  hasGit: boolean,
): IgnoreLayer[] {
  return layersFrom(dir, layerTexts(dir, present, inGit, hasGit));
}

/** The texts of one folder's ignore files that apply: git's and the others'. */
function layerTexts(
  dir: string,
  present: readonly string[],
  inGit: boolean,
  hasGit: boolean,
): { git: string[]; plain: string[] } {
  const git: string[] = [];
  if (inGit && hasGit) git.push(readText(join(dir, ".git", "info", "exclude")));
  if (inGit && present.includes(".gitignore")) git.push(readText(join(dir, ".gitignore")));
  const plain = [".ignore", ".rgignore"].filter((n) => present.includes(n)).map((n) =>
    readText(join(dir, n))
  );
  return { git, plain };
}

function layersFrom(dir: string, texts: { git: string[]; plain: string[] }): IgnoreLayer[] {
  return [ignoreLayer(dir, texts.git, { git: true }), ignoreLayer(dir, texts.plain)].filter((l) =>
    l.rules.length > 0
  );
}

function readText(path: string): string {
  try {
    return Deno.readTextFileSync(path);
  } catch {
    return "";
  }
}

/** What the folders above a walk's root contribute. */
interface Ancestors {
  /** Their ignore layers, shallowest first. */
  chain: IgnoreLayer[];
  /** Whether one of them is a git repository. */
  inGit: boolean;
  /** When they were read. */
  readAt: number;
  /** The folders and ignore files whose change invalidates this. */
  watch: string[];
  /** What the rules were made from (folders, git roots, file texts): equal means equal rules. */
  source: string;
}

/**
 * The ignore rules above `root`. When they come from the same files and texts
 * as `previous` (a folder above changed, not its rules: another project
 * appeared in ~), `previous` itself, brought up to date, so what was
 * remembered against it holds.
 */
function ancestorLayers(root: string, previous?: Ancestors): Ancestors {
  const readAt = Date.now();
  const dirs: string[] = [];
  for (let d = dirname(root);; d = dirname(d)) {
    dirs.unshift(d);
    if (dirname(d) === d) break;
  }
  let inGit = false;
  const watch = [...dirs];
  const found: Array<{ dir: string; hasGit: boolean; texts: { git: string[]; plain: string[] } }> = [];
  const source: string[] = [];
  for (const d of dirs) {
    const hasGit = exists(join(d, ".git"));
    inGit ||= hasGit;
    const present = IGNORE_FILES.filter((n) => exists(join(d, n)));
    watch.push(...present.map((n) => join(d, n)));
    const exclude = join(d, ".git", "info", "exclude");
    if (inGit && hasGit && exists(exclude)) watch.push(exclude);
    if (present.length === 0 && !hasGit) continue;
    const texts = layerTexts(d, present, inGit, hasGit);
    found.push({ dir: d, hasGit, texts });
    source.push(d, String(hasGit), ...present, ...texts.git, ...texts.plain);
  }
  const joined = source.join("\0");
  if (previous?.source === joined) return Object.assign(previous, { readAt, watch });
  let chain: IgnoreLayer[] = [];
  for (const f of found) {
    if (f.hasGit) chain = chain.filter((l) => !l.git);
    chain.push(...layersFrom(f.dir, f.texts));
  }
  return { chain, inGit, readAt, watch, source: joined };
}

function exists(path: string): boolean {
  try {
    Deno.lstatSync(path);
    return true;
  } catch {
    return false;
  }
}

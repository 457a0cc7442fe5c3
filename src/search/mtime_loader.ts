/**
 * The mtimes of a walk's matches, for Glob's newest-first order. Known ones
 * come from the warm index; the rest are statted here, and once a walk has
 * more than {@link WORKER_FROM} of them, batches go to a worker thread
 * (`mtime_worker.ts`) that stats them on the second core while the walk goes
 * on. Measured on a 200k-file tree (40k matches, 2 cores): the stats are a
 * third of a first call; a worker costs ~35 ms to start, so small walks never
 * start one. When the walk ends, this thread takes the worker's batches from
 * the back until the worker's answers cover the rest, so a slow (or busy, or
 * failed) worker costs no more than statting here. When the process's walk
 * helper thread is ready, no worker is started: the stats left at the end
 * are shared with the helper instead (`shareMtimes` in `walk_helper.ts`).
 *
 * @module
 */
import { setImmediate } from "node:timers";
import type { DirNode } from "./file_index.ts";
import { mayRead, MTIME_MODULES, type MtimeStatter, searchWorkerFiles } from "./walk_helper.ts";
import { mtimeOf } from "./stat_claims.ts";

/** Matches still to stat before a walk starts a worker thread for them. */
export const WORKER_FROM = 4096;

/** Paths sent to the worker per message. */
const BATCH = 1024;

/** One match whose mtime is wanted (written into `mtime`, and cached in its node). */
export interface MtimeItem {
  /** Absolute folder. */
  readonly dir: string;
  /** File name. */
  readonly name: string;
  /** The folder's node and the file's index in it. */
  readonly node: DirNode;
  /** Index of the file in its node (see `DirNode.packedFiles`). */
  readonly k: number;
  /** mtime (ms), 0 when the file cannot be statted; NaN until loaded. */
  mtime: number;
}

/**
 * Loads mtimes of walk matches: {@link add} each, then await {@link finish}.
 *
 * @example
 * ```ts
 * import { FileIndex } from "./file_index.ts";
 * import { MtimeLoader } from "./mtime_loader.ts";
 * const dir = Deno.makeTempDirSync();
 * Deno.writeTextFileSync(`${dir}/a.txt`, "x");
 * const node = new FileIndex().node(dir)!;
 * const loader = new MtimeLoader();
 * const item = { dir, name: "a.txt", node, k: 0, mtime: NaN };
 * loader.add(item);
 * await loader.finish();
 * console.assert(item.mtime > 0);
 * Deno.removeSync(dir, { recursive: true });
 * ```
 */
export class MtimeLoader {
  #pending: MtimeItem[] = [];
  #worker: Worker | undefined;
  #failed = false;
  #sent = new Map<number, MtimeItem[]>();
  #nextId = 0;
  #workerFrom: number;
  #share: MtimeStatter | undefined;

  /**
   * `workerFrom`: matches still to stat before a worker starts (default
   * {@link WORKER_FROM}; Infinity for none); `share`: stats the matches left
   * at the end with another thread (or declines), and no worker is started.
   */
  constructor(options: { workerFrom?: number; share?: MtimeStatter } = {}) {
    this.#share = options.share;
    this.#workerFrom = options.share ? Infinity : options.workerFrom ?? WORKER_FROM;
  }

  /** Takes the mtime from the node's cache, or queues the file to be statted. */
  add(item: MtimeItem): void {
    const known = item.node.fileMtimes?.[item.k];
    if (known !== undefined && !Number.isNaN(known)) {
      item.mtime = known;
      return;
    }
    this.#pending.push(item);
    if (this.#pending.length < Math.min(BATCH, this.#workerFrom) || this.#failed) return;
    if (this.#worker === undefined && this.#pending.length + this.#sent.size * BATCH < this.#workerFrom) {
      return;
    }
    this.#post();
  }

  /**
   * Stats what is left, then takes the worker's batches from the back (the
   * ones it reaches last) until its answers cover the rest, and stops it.
   */
  async finish(): Promise<void> {
    try {
      const pending = this.#pending;
      const shared = pending.length
        ? this.#share?.(pending.map((item) => `${item.dir}/${item.name}`))
        : undefined;
      if (shared) { for (let i = 0; i < pending.length; i++) statInto(pending[i], shared[i]); }
      else for (const item of pending) statInto(item, mtimeOf(`${item.dir}/${item.name}`));
      this.#pending = [];
      while (this.#sent.size > 0) {
        await new Promise((resolve) => setImmediate(resolve)); // lets the worker's answers in
        let last: number | undefined;
        for (const id of this.#sent.keys()) last = id;
        if (last === undefined) break;
        const batch = this.#sent.get(last)!;
        this.#sent.delete(last);
        for (const item of batch) statInto(item, mtimeOf(`${item.dir}/${item.name}`));
      }
    } finally {
      this.stop();
    }
  }

  /** Stops the worker, if one was started (mtimes not loaded yet stay NaN). */
  stop(): void {
    this.#worker?.terminate();
    this.#worker = undefined;
  }

  #post(): void {
    if (this.#worker === undefined) {
      const url = new URL("./mtime_worker.ts", import.meta.url);
      // without read access to its modules the worker dies with an uncaught error: stat here instead
      if (!mayRead(searchWorkerFiles(MTIME_MODULES))) {
        this.#failed = true;
        return;
      }
      try {
        this.#worker = new Worker(url, { type: "module" });
      } catch {
        this.#failed = true;
        return;
      }
      this.#worker.onmessage = (e: MessageEvent<{ id: number; times: Float64Array }>) => {
        const items = this.#sent.get(e.data.id);
        if (!items) return;
        this.#sent.delete(e.data.id);
        for (let i = 0; i < items.length; i++) statInto(items[i], e.data.times[i]);
      };
      this.#worker.onerror = (e) => {
        e.preventDefault(); // its batches stay in #sent: finish() stats them here
        this.#failed = true;
      };
    }
    const size = Math.min(BATCH, this.#workerFrom);
    while (this.#pending.length >= size) {
      const batch = this.#pending.splice(this.#pending.length - size, size);
      const id = this.#nextId++;
      this.#sent.set(id, batch);
      this.#worker.postMessage({ id, paths: batch.map((item) => `${item.dir}/${item.name}`) });
    }
  }
}

function statInto(item: MtimeItem, mtime: number): void {
  item.mtime = mtime;
  const node = item.node;
  (node.fileMtimes ??= new Float64Array(node.fileCount).fill(NaN))[item.k] = mtime;
}

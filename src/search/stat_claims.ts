/**
 * Work two threads share by claiming chunks of one list from a shared
 * counter ({@link claimChunks}): the main thread and the walk helper
 * (`walk_helper.ts`) check folders (`file_index.ts`'s `checkClaimed`) and
 * stat file mtimes ({@link statClaimed}) this way. Loaded by both threads,
 * and by `MtimeLoader`'s worker for {@link mtimeOf}.
 *
 * @module
 */

/**
 * Runs `work` on chunks of `chunk` items of a list of `length`, claimed from
 * `ctrl[0]` until none is left. The helper (`helper` true) counts the chunks
 * it claimed in `ctrl[1]` and finished in `ctrl[2]`, and notifies on
 * `ctrl[2]`, so the thread that waits on it knows what is still under way.
 *
 * @example
 * ```ts
 * import { claimChunks } from "./stat_claims.ts";
 * const seen: number[] = [];
 * claimChunks(new Int32Array(new SharedArrayBuffer(12)), 5, 2, false, (from, to) => void seen.push(from, to));
 * console.assert(seen.join() === "0,2,2,4,4,5");
 * ```
 */
export function claimChunks(
  ctrl: Int32Array,
  length: number,
  chunk: number,
  helper: boolean,
  work: (from: number, to: number) => void,
): void {
  for (;;) {
    const from = Atomics.add(ctrl, 0, 1) * chunk;
    if (from >= length) return;
    if (helper) Atomics.add(ctrl, 1, 1);
    work(from, Math.min(from + chunk, length));
    if (helper) {
      Atomics.add(ctrl, 2, 1);
      Atomics.notify(ctrl, 2);
    }
  }
}

/**
 * The stats of one shared job: each thread claims {@link MtimeClaims.chunk}
 * paths at a time ({@link claimChunks}), writes each mtime into `times` and
 * then marks it in `done` (an atomic store, so a thread that sees the mark
 * sees the time).
 */
export interface MtimeClaims {
  /** Absolute paths. */
  paths: readonly string[];
  /** Paths per claim. */
  chunk: number;
  /** Int32 [next chunk, chunks the helper claimed, chunks the helper finished]. */
  ctrl: SharedArrayBuffer;
  /** Float64 mtime per path (ms; 0 when it cannot be statted). */
  times: SharedArrayBuffer;
  /** Uint8 per path: 1 once its time is written. */
  done: SharedArrayBuffer;
}

/**
 * Stats the paths this thread claims (see {@link MtimeClaims}) until none is
 * left; `helper` counts its chunks for the thread that waits on it.
 *
 * @example
 * ```ts
 * import { statClaimed } from "./stat_claims.ts";
 * const job = {
 *   paths: [Deno.execPath()],
 *   chunk: 8,
 *   ctrl: new SharedArrayBuffer(12),
 *   times: new SharedArrayBuffer(8),
 *   done: new SharedArrayBuffer(1),
 * };
 * statClaimed(job, false);
 * console.assert(new Float64Array(job.times)[0] > 0);
 * ```
 */
export function statClaimed(job: MtimeClaims, helper: boolean): void {
  const times = new Float64Array(job.times);
  const done = new Uint8Array(job.done);
  const { paths } = job;
  claimChunks(new Int32Array(job.ctrl), paths.length, job.chunk, helper, (from, to) => {
    for (let i = from; i < to; i++) {
      times[i] = mtimeOf(paths[i]);
      Atomics.store(done, i, 1);
    }
  });
}

/** A file's mtime (ms), 0 when it cannot be statted. */
export function mtimeOf(path: string): number {
  try {
    return Deno.statSync(path).mtime?.getTime() ?? 0;
  } catch {
    return 0;
  }
}

/**
 * File mtimes statted by two threads at once: the main thread and the walk
 * helper (`walk_helper.ts`) claim chunks of one list from a shared counter
 * and write each time into one shared buffer. Loaded by both threads.
 *
 * @module
 */

/**
 * The stats of one shared job: each thread claims {@link MtimeClaims.chunk}
 * paths at a time from `ctrl[0]`, writes each mtime into `times` and then
 * marks it in `done` (an atomic store, so a thread that sees the mark sees
 * the time); the helper counts the chunks it claimed and finished in `ctrl[1]` and `ctrl[2]`,
 * so the main thread knows what to wait for.
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
  const ctrl = new Int32Array(job.ctrl);
  const times = new Float64Array(job.times);
  const done = new Uint8Array(job.done);
  const { paths, chunk } = job;
  for (;;) {
    const from = Atomics.add(ctrl, 0, 1) * chunk;
    if (from >= paths.length) return;
    if (helper) Atomics.add(ctrl, 1, 1);
    const to = Math.min(from + chunk, paths.length);
    for (let i = from; i < to; i++) {
      times[i] = mtimeOf(paths[i]);
      Atomics.store(done, i, 1);
    }
    if (helper) {
      Atomics.add(ctrl, 2, 1);
      Atomics.notify(ctrl, 2);
    }
  }
}

/** A file's mtime (ms), 0 when it cannot be statted. */
export function mtimeOf(path: string): number {
  try {
    return Deno.statSync(path).mtime?.getTime() ?? 0;
  } catch {
    return 0;
  }
}

/**
 * The newest of a stream of paths, for Glob's newest-first answer: a min-heap
 * of at most `limit` entries whose root is the worst kept, so each offer costs
 * one comparison unless it makes the cut, and only the paths that do are
 * built. Ties in mtime go to the path that sorts first.
 *
 * @module
 */

/** A kept entry. */
interface Entry {
  /** mtime (ms). */
  m: number;
  /** Path relative to the walk's root. */
  path: string;
}

/** Whether `a` ranks below `b`: older, or as old with a path that sorts later. */
function worse(a: Entry, b: Entry): boolean {
  return a.m < b.m || (a.m === b.m && a.path > b.path);
}

/**
 * Keeps the `limit` newest of the paths offered, and counts them all.
 *
 * @example
 * ```ts
 * import { NewestPaths } from "./newest.ts";
 * const top = new NewestPaths(2);
 * top.offer(10, "a", "x.ts");
 * top.offer(30, "", "y.ts");
 * top.offer(20, "b", "z.ts");
 * console.assert(top.paths().join() === "y.ts,b/z.ts" && top.total === 3);
 * ```
 */
export class NewestPaths {
  #heap: Entry[] = [];
  #limit: number;
  /** Paths offered. */
  total = 0;

  /** Keeps at most `limit` paths. */
  constructor(limit: number) {
    this.#limit = limit;
  }

  /** Offers the file `name` in folder `relDir` (`""` at the root), modified at `mtime` (ms). */
  offer(mtime: number, relDir: string, name: string): void {
    this.total++;
    const h = this.#heap;
    if (this.#limit <= 0) return;
    if (h.length === this.#limit && mtime < h[0].m) return; // older than the oldest kept: the common case
    const e = { m: mtime, path: relDir ? `${relDir}/${name}` : name };
    if (h.length < this.#limit) {
      h.push(e);
      let i = h.length - 1;
      while (i > 0) {
        const p = (i - 1) >> 1;
        if (!worse(h[i], h[p])) break;
        [h[i], h[p]] = [h[p], h[i]];
        i = p;
      }
      return;
    }
    if (!worse(h[0], e)) return;
    h[0] = e;
    for (let i = 0;;) {
      const l = 2 * i + 1;
      if (l >= h.length) break;
      const c = l + 1 < h.length && worse(h[l + 1], h[l]) ? l + 1 : l;
      if (!worse(h[c], h[i])) break;
      [h[i], h[c]] = [h[c], h[i]];
      i = c;
    }
  }

  /** The kept paths, newest first (ties by path). */
  paths(): string[] {
    return [...this.#heap].sort((a, b) => b.m - a.m || (a.path < b.path ? -1 : 1)).map((e) => e.path);
  }
}

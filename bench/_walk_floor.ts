/**
 * The least a walk in Deno can cost: `Deno.readDirSync` per folder and
 * `Deno.statSync` per match, on this thread and a worker taking top-level
 * folders from a shared counter, keeping nothing and applying no ignore
 * rules (so it is only a fair floor on a tree without ignore files, such as
 * the generated one). Glob's first call does this work and more; the gap
 * between the two is what our own layer costs.
 *
 * Imported, it exports {@link FloorWalker}; run as a worker, it walks for the
 * thread that started it.
 *
 * @module
 */
import { parentPort, Worker } from "node:worker_threads";

interface FloorJob {
  dirs: string[];
  suffix: string;
  claims: SharedArrayBuffer;
}

/** Walks the `dirs` this thread claims; returns the matches it statted. */
function walkClaimed(job: FloorJob): number {
  const claims = new Int32Array(job.claims);
  let found = 0;
  for (let i = Atomics.add(claims, 0, 1); i < job.dirs.length; i = Atomics.add(claims, 0, 1)) {
    const stack = [job.dirs[i]];
    while (stack.length) {
      const dir = stack.pop()!;
      for (const e of Deno.readDirSync(dir)) {
        if (e.isDirectory) {
          if (e.name !== ".git") stack.push(`${dir}/${e.name}`);
        } else if (e.isFile && e.name.endsWith(job.suffix)) {
          Deno.statSync(`${dir}/${e.name}`);
          found++;
        }
      }
    }
  }
  return found;
}

if (parentPort) parentPort.on("message", (job: FloorJob) => parentPort!.postMessage(walkClaimed(job)));

/** A floor walker with its worker thread; {@link FloorWalker.close} when done. */
export class FloorWalker {
  #worker = new Worker(new URL(import.meta.url));

  /** Files named `*suffix` under `root` (statted), on `threads` threads (1 or 2). */
  async walk(root: string, suffix: string, threads: 1 | 2): Promise<number> {
    const top = [...Deno.readDirSync(root)];
    const dirs = top.filter((e) => e.isDirectory && e.name !== ".git").map((e) => `${root}/${e.name}`);
    const own = top.filter((e) => e.isFile && e.name.endsWith(suffix));
    for (const e of own) Deno.statSync(`${root}/${e.name}`);
    const job: FloorJob = { dirs, suffix, claims: new SharedArrayBuffer(4) };
    let theirs = Promise.resolve(0);
    if (threads === 2) {
      theirs = new Promise<number>((resolve) => this.#worker.once("message", resolve));
      this.#worker.postMessage(job);
    }
    const mine = walkClaimed(job);
    return own.length + mine + await theirs;
  }

  /** Stops the worker. */
  async close(): Promise<void> {
    await this.#worker.terminate();
  }
}

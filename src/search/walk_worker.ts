/**
 * The helper thread of `walk_helper.ts`: takes subtrees of a Glob walk, one
 * at a time, from the list the main thread shares with it, and walks each
 * with a fresh {@link FileIndex} (nothing is kept between walks, so a first
 * call stays a first call), stats the matches, and posts every folder it read.
 * A folder leaves the helper's index as soon as it is read: what the thread
 * keeps alive its garbage collector must copy, and dropping them cut the
 * helper's scavenging time on a 200k-file walk to a third.
 *
 * @module
 */
import { parentPort } from "node:worker_threads";
import { checkClaimed, FileIndex, type WalkFrame } from "./file_index.ts";
import { globMatcher } from "./glob_match.ts";
import { statClaimed } from "./stat_claims.ts";
import type { CheckJob, MtimeJob, WalkedFolder, WalkJob, WalkReply } from "./walk_helper.ts";

const port = parentPort!;

/** Longest this thread sleeps at a time while a walk is held (it then looks at the stop flag again), ms. */
const HOLD_NAP_MS = 20;

port.on("message", (job: WalkJob | CheckJob | MtimeJob) => {
  if (job.kind !== "walk") {
    // answered through the job's shared buffers; nothing to post
    try {
      if (job.kind === "check") checkClaimed(job, true);
      else statClaimed(job, true);
    } catch {
      // what the helper did not mark, the main thread checks itself
    }
    return;
  }
  try {
    walkJob(job);
  } catch (err) {
    port.postMessage({ type: "error", id: job.id, message: String(err) } satisfies WalkReply);
  }
  port.postMessage({ type: "end", id: job.id } satisfies WalkReply);
});
port.postMessage({ type: "ready" } satisfies WalkReply);

function walkJob(job: WalkJob): void {
  const index = new FileIndex();
  const { test } = globMatcher(job.pattern);
  const claims = new Int32Array(job.claims);
  const hold = job.hold ? new Int32Array(job.hold) : undefined;
  /** False when the main thread stopped the walk; waits while the walk is held. */
  const goOn = (): boolean => {
    for (;;) {
      if (Atomics.load(claims, 1) !== 0) return false;
      const holders = hold ? Atomics.load(hold, 0) : 0;
      if (holders === 0) return true;
      Atomics.wait(hold!, 0, holders, HOLD_NAP_MS);
    }
  };
  for (;;) {
    if (!goOn()) return;
    const i = Atomics.add(claims, 0, 1);
    if (i >= job.frames.length) return;
    const folders: WalkedFolder[] = [];
    const unreadable: string[] = [];
    const stack: WalkFrame[] = [job.frames[i]];
    let visited = 0;
    while (stack.length) {
      if ((++visited & 63) === 0 && !goOn()) return;
      const frame = stack.pop()!;
      const hits: number[] = [];
      const hitNames: string[] = [];
      index.visit(job.root, frame, {
        respectIgnore: job.respectIgnore,
        maxDepth: job.maxDepth,
        match: { test },
        onFile: (_relDir, name, node, k) => {
          hits.push(k);
          hitNames.push(name);
          index.fileMtime(frame.dir, node, k, name);
        },
      }, stack);
      const node = index.peek(frame.dir);
      if (!node) {
        unreadable.push(frame.dir);
        continue;
      }
      index.drop(frame.dir); // handed on below: nothing to keep
      folders.push({
        dir: frame.dir,
        rel: frame.rel,
        readAt: node.readAt,
        packedFiles: node.packedFiles,
        fileCount: node.fileCount,
        dirs: node.dirs,
        hasGit: node.hasGit,
        ignoreFiles: node.ignoreFiles,
        hits: Uint32Array.from(hits),
        hitNames,
        mtimes: node.fileMtimes,
      });
    }
    port.postMessage({ type: "part", id: job.id, i, folders, unreadable } satisfies WalkReply);
  }
}

/** Test helpers for process groups: is any process of a group alive, and waiting for a condition. */
import { isLive, processTable } from "../../src/tasks/process_group.ts";

/** Live (non-zombie) processes whose process group is `pgid`. */
export function groupMembers(pgid: number): number[] {
  return processTable().filter((p) => p.pgid === pgid && isLive(p)).map((p) => p.pid);
}

/** Live processes whose command line starts with `needle` (for escapees that left the group). */
export function processesWith(needle: string): number[] {
  const pids: number[] = [];
  for (const p of processTable()) {
    if (!isLive(p)) continue;
    try {
      const cmd = Deno.readTextFileSync(`/proc/${p.pid}/cmdline`).replaceAll("\0", " ");
      if (cmd.startsWith(needle)) pids.push(p.pid);
    } catch {
      // ended meanwhile
    }
  }
  return pids;
}

/** Polls `cond` until it holds or `ms` pass; returns its last value. Not a timing assertion: a bound on waiting. */
export async function waitUntil(cond: () => boolean, ms = 10_000): Promise<boolean> {
  const end = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > end) return false;
    await new Promise((r) => setTimeout(r, 25));
  }
  return true;
}

/** The deno executable running the tests. */
export const DENO = Deno.execPath();

/** Absolute path of the repository's deno.json (child processes need its import map). */
export const CONFIG = new URL("../../deno.json", import.meta.url).pathname;

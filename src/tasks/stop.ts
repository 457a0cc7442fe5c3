/**
 * Stopping one command and everything it started, however it is contained
 * (`containment.ts`): its process group (a PID namespace's `unshare` or
 * bubblewrap leads it, and everything in the namespace dies with them), every
 * process in its cgroup, and, where neither holds them, every process still
 * in its session, carrying its task marker, or descending from one of those.
 *
 * What the ledger recorded is checked before it is used: cgroup folders must
 * be Paddock's (`/sys/fs/cgroup/…/paddock-<pid>-<n>-<hex>`) and markers plain
 * words, so that a planted ledger cannot aim the reaper at other processes.
 *
 * @module
 */
import type { Containment } from "./containment.ts";
import {
  type GroupRef,
  type GroupState,
  groupState,
  isLive,
  processesWithMarker,
  processTable,
  signalGroup,
  signalProcesses,
  terminate,
  type TerminateOptions,
  terminateSync,
  type Terminator,
} from "./process_group.ts";

/**
 * What a caller knows about a command it started: its group, and how its
 * other processes are held.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import type { CommandRef } from "./stop.ts";
 * const ref: CommandRef = {
 *   pgid: 4242,
 *   startTime: "123456",
 *   marker: "b1a2b3c4",
 *   containment: "cgroup",
 *   cgroups: ["/sys/fs/cgroup/pids/paddock-4000-1-ab12"],
 * };
 * assert.equal(ref.containment, "cgroup");
 * ```
 */
export interface CommandRef extends GroupRef {
  /** How its processes are kept together. Default: its group only. */
  containment?: Containment;
  /** The cgroup folders it runs in. Default none. */
  cgroups?: string[];
}

const CGROUP_DIR = /^\/sys\/fs\/cgroup\/(?:[^/]+\/)*paddock-\d+-\d+-[0-9a-f]{4}$/;

/** The cgroups of `ref` that are Paddock's (a ledger is a file in the workspace: check what it says). */
function cgroupsOf(ref: CommandRef): string[] {
  return (ref.cgroups ?? []).filter((dir) =>
    CGROUP_DIR.test(dir) && !dir.split("/").some((part) => part === ".." || part === ".")
  );
}

/**
 * The processes in cgroups `dirs` (a missing cgroup has none).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { cgroupMembers } from "./stop.ts";
 * assert.deepEqual(cgroupMembers(["/nonexistent/cgroup"]), []);
 * ```
 */
export function cgroupMembers(dirs: readonly string[]): number[] {
  const pids: number[] = [];
  for (const dir of dirs) {
    try {
      for (const line of Deno.readTextFileSync(`${dir}/cgroup.procs`).split("\n")) {
        const pid = Number(line);
        if (line !== "" && Number.isInteger(pid)) pids.push(pid);
      }
    } catch {
      // gone, or not readable
    }
  }
  return pids;
}

/**
 * Processes of a `process-group` command outside its group: in its session
 * (only while its leader is ours: the session id is the leader's pid),
 * carrying its marker, or descending from either or from a group member.
 */
function strays(ref: CommandRef, leaderOurs: boolean): number[] {
  if (ref.containment !== "process-group") return [];
  const table = processTable().filter(isLive);
  const found = new Set(processesWithMarker(ref.marker));
  for (const p of table) {
    if (leaderOurs && p.sid === ref.pgid && p.pgid !== ref.pgid) found.add(p.pid);
  }
  // descendants by parent chain, from the group and the strays found so far
  const roots = new Set([
    ...found,
    ...(leaderOurs ? table.filter((p) => p.pgid === ref.pgid).map((p) => p.pid) : []),
  ]);
  let grew = true;
  while (grew) {
    grew = false;
    for (const p of table) {
      if (roots.has(p.ppid) && !roots.has(p.pid)) {
        roots.add(p.pid);
        if (p.pgid !== ref.pgid) found.add(p.pid);
        grew = true;
      }
    }
  }
  found.delete(Deno.pid);
  return [...found];
}

/** The first process of each command's PID namespace (pid → start time), found while the leader lives. */
const inits = new WeakMap<CommandRef, Map<number, string>>();

/**
 * The live first processes of a `pid-namespace` command's namespace: the
 * leader's children (bubblewrap's inner process, `unshare`'s forked shell),
 * remembered from when the leader was seen alive. Killing one ends its whole
 * namespace. They matter when the leader dies before they armed their
 * parent-death signal (a stop during start-up): they would run on, orphaned.
 */
function namespaceInits(ref: CommandRef, leaderOurs: boolean): number[] {
  if (ref.containment !== "pid-namespace") return [];
  let known = inits.get(ref);
  if (!known) inits.set(ref, known = new Map());
  if (!leaderOurs && known.size === 0) return []; // never seen: nothing to look for
  const table = processTable().filter(isLive);
  if (leaderOurs) {
    for (const p of table) if (p.ppid === ref.pgid) known.set(p.pid, p.startTime);
  }
  return [...known].filter(([pid, start]) => table.some((p) => p.pid === pid && p.startTime === start))
    .map(([pid]) => pid);
}

/**
 * Whether a command still runs and is ours: its group ({@link groupState}),
 * else the first process of its PID namespace, else any process in its
 * cgroups, else (`process-group`) any process carrying its marker.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { commandState } from "./stop.ts";
 * assert.equal(commandState({ pgid: 999_999_999, startTime: "1", marker: "m" }), "gone");
 * ```
 */
export function commandState(ref: CommandRef): GroupState {
  const group = groupState(ref);
  if (group === "ours") return "ours";
  if (namespaceInits(ref, false).length > 0) return "ours";
  if (cgroupMembers(cgroupsOf(ref)).length > 0) return "ours";
  if (strays(ref, false).length > 0) return "ours";
  return group;
}

function signalCommand(ref: CommandRef, signal: "SIGTERM" | "SIGKILL"): void {
  const leaderOurs = groupState(ref) === "ours";
  const outside = strays(ref, leaderOurs); // before the group dies: the session still tells
  const namespaced = ref.containment === "pid-namespace";
  // a stopped leader cannot start its namespace meanwhile (the kernel restarts a fork a group signal interrupts)
  if (namespaced && leaderOurs) signalGroup(ref.pgid, "SIGSTOP");
  // a namespace's first process ignores SIGTERM, and the leader's death SIGKILLs it anyway
  signalProcesses(namespaceInits(ref, leaderOurs), "SIGKILL");
  if (leaderOurs) signalGroup(ref.pgid, signal);
  if (namespaced && leaderOurs) signalGroup(ref.pgid, "SIGCONT");
  const cgroups = cgroupsOf(ref);
  if (signal === "SIGKILL") {
    for (const dir of cgroups) {
      try {
        Deno.writeTextFileSync(`${dir}/cgroup.kill`, "1"); // cgroup v2: every member at once
      } catch {
        // v1, or an older kernel: one by one below
      }
    }
  }
  signalProcesses([...cgroupMembers(cgroups), ...outside], signal);
}

const commands: Terminator<CommandRef> = {
  alive: (r) => commandState(r) === "ours",
  signal: signalCommand,
};

/**
 * Stops commands and all they started: SIGTERM, grace, SIGKILL (see
 * `terminate` in `process_group.ts`). Returns those that needed SIGKILL.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { stopCommands } from "./stop.ts";
 * assert.deepEqual(await stopCommands([]), []);
 * ```
 */
export function stopCommands(
  refs: readonly CommandRef[],
  options: TerminateOptions = {},
): Promise<CommandRef[]> {
  return terminate(refs, commands, options);
}

/**
 * Like {@link stopCommands}, blocking: for `unload` handlers and start-up reaping.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { stopCommandsSync } from "./stop.ts";
 * assert.deepEqual(stopCommandsSync([]), []);
 * ```
 */
export function stopCommandsSync(refs: readonly CommandRef[], options: TerminateOptions = {}): CommandRef[] {
  return terminateSync(refs, commands, options);
}

/**
 * Removes the (Paddock-named) cgroups of stopped commands, waiting up to
 * `waitMs` for their last processes to leave; best effort, blocking.
 */
export function removeCgroupsSync(refs: readonly CommandRef[], waitMs = 1000): void {
  const dirs = refs.flatMap(cgroupsOf);
  const end = Date.now() + waitMs;
  const cell = new Int32Array(new SharedArrayBuffer(4));
  for (const dir of dirs) {
    for (;;) {
      try {
        Deno.removeSync(dir);
        break;
      } catch (err) {
        if (err instanceof Deno.errors.NotFound || Date.now() > end) break;
        Atomics.wait(cell, 0, 0, 20);
      }
    }
  }
}

/**
 * Process groups: who is in one, whether it is still the group we started
 * (pid reuse is guarded by the leader's start time and an environment
 * marker), and killing it, with `Deno.kill` when Deno allows it and through
 * `bash` (`kill -TERM -- -PGID`) when only `--allow-run=bash` is granted.
 *
 * On Linux the process table comes from `/proc` (read directly, or through
 * `bash` when Deno may not read `/proc`); elsewhere from `ps`.
 *
 * @module
 */

/** Environment variable every spawned group carries, so its members can be recognised later. */
export const TASK_MARKER_ENV = "PADDOCK_TASK_ID";

/** One row of the process table. */
export interface ProcInfo {
  /** Process id. */
  pid: number;
  /** Parent process id. */
  ppid: number;
  /** Process group id. */
  pgid: number;
  /** Session id. */
  sid: number;
  /** State letter (`R`, `S`, `Z` for a zombie…). */
  state: string;
  /** Start time as the OS reports it (clock ticks since boot on Linux). */
  startTime: string;
}

/**
 * What a caller knows about a group it started.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import type { GroupRef } from "./process_group.ts";
 * const ref: GroupRef = { pgid: 4242, startTime: "123456", marker: "b1a2b3c4" };
 * assert.equal(ref.marker, "b1a2b3c4");
 * ```
 */
export interface GroupRef {
  /** Process group id (the leader's pid: the command ran with `detached: true`). */
  pgid: number;
  /** The leader's start time when it was spawned ({@link processStartTime}). */
  startTime: string;
  /** Value of {@link TASK_MARKER_ENV} in the group's environment. */
  marker: string;
}

/** `gone`: no live member; `ours`: the group we started; `foreign`: the id now belongs to someone else. */
export type GroupState = "gone" | "ours" | "foreign";

const PS_FIELDS = "pid=,ppid=,pgid=,sess=,stat=,lstart=";
let directProc: boolean | undefined;
let directKill: boolean | undefined;

/**
 * Parses one `/proc/<pid>/stat` line (the command name may hold spaces and parentheses).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { parseProcStat } from "./process_group.ts";
 * const line = "42 (my (odd) cmd) S 1 42 42 0 -1 0 0 0 0 0 0 0 0 0 20 0 1 0 9876 0 0";
 * assert.ok(parseProcStat(line)?.startTime === "9876");
 * ```
 */
export function parseProcStat(line: string): ProcInfo | undefined {
  const open = line.indexOf(" (");
  const close = line.lastIndexOf(")");
  if (open < 0 || close < open) return undefined;
  const rest = line.slice(close + 2).split(" ");
  const pid = Number(line.slice(0, open));
  if (!Number.isInteger(pid) || rest.length < 20) return undefined;
  return {
    pid,
    state: rest[0],
    ppid: Number(rest[1]),
    pgid: Number(rest[2]),
    sid: Number(rest[3]),
    startTime: rest[19],
  };
}

function bashOutputSync(script: string): string {
  const out = new Deno.Command("bash", {
    args: ["-c", script],
    stdin: "null",
    stdout: "piped",
    stderr: "null",
  })
    .outputSync();
  return new TextDecoder().decode(out.stdout);
}

function isDenied(err: unknown): boolean {
  return err instanceof Deno.errors.NotCapable || err instanceof Deno.errors.PermissionDenied;
}

function psTable(): ProcInfo[] {
  const rows: ProcInfo[] = [];
  for (const line of bashOutputSync(`ps -axo ${PS_FIELDS}`).split("\n")) {
    const f = line.trim().split(/\s+/);
    if (f.length < 10) continue;
    rows.push({
      pid: +f[0],
      ppid: +f[1],
      pgid: +f[2],
      sid: +f[3],
      state: f[4][0],
      startTime: f.slice(5).join(" "),
    });
  }
  return rows;
}

/**
 * The process table now (zombies included; see {@link isLive}).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { processTable } from "./process_group.ts";
 * assert.ok(processTable().some((p) => p.pid === Deno.pid));
 * ```
 */
export function processTable(): ProcInfo[] {
  if (Deno.build.os !== "linux") return psTable();
  if (directProc !== false) {
    try {
      const rows: ProcInfo[] = [];
      for (const entry of Deno.readDirSync("/proc")) {
        if (!/^\d+$/.test(entry.name)) continue;
        try {
          const info = parseProcStat(Deno.readTextFileSync(`/proc/${entry.name}/stat`));
          if (info) rows.push(info);
        } catch (err) {
          if (isDenied(err)) throw err;
          // the process ended while we listed
        }
      }
      directProc = true;
      return rows;
    } catch (err) {
      if (!isDenied(err)) throw err;
      directProc = false;
    }
  }
  const text = bashOutputSync(
    'for f in /proc/[0-9]*/stat; do read -r l < "$f" && printf \'%s\\n\' "$l"; done 2>/dev/null',
  );
  return text.split("\n").map(parseProcStat).filter((p): p is ProcInfo => p !== undefined);
}

/** True for a process that still runs (not a zombie or dead entry). */
export function isLive(p: ProcInfo): boolean {
  return p.state !== "Z" && p.state !== "X" && p.state !== "x";
}

/**
 * The start time of a process, or undefined when it does not exist.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { processStartTime } from "./process_group.ts";
 * assert.notEqual(processStartTime(Deno.pid), undefined);
 * ```
 */
export function processStartTime(pid: number): string | undefined {
  return procInfo(pid)?.startTime;
}

function environMarker(pid: number): string | undefined {
  if (Deno.build.os !== "linux") return undefined;
  let text: string;
  try {
    text = directProc === false
      ? bashOutputSync(`tr '\\0' '\\n' < /proc/${pid}/environ`)
      : Deno.readTextFileSync(`/proc/${pid}/environ`).replaceAll("\0", "\n");
  } catch {
    return undefined;
  }
  const line = text.split("\n").find((l) => l.startsWith(`${TASK_MARKER_ENV}=`));
  return line?.slice(TASK_MARKER_ENV.length + 1);
}

/**
 * Whether any process (zombies included) is in group `pgid`: `kill(-pgid, 0)`,
 * with `Deno.kill` when Deno allows it, else `kill -0 -- -PGID` through bash.
 * Either is far cheaper than a scan of the process table.
 */
export function groupExists(pgid: number): boolean {
  if (!Number.isInteger(pgid) || pgid <= 1) return false;
  if (directKill !== false) {
    try {
      // signal 0 only checks that the target exists; Deno passes the number through to kill(2)
      Deno.kill(-pgid, 0 as unknown as Deno.Signal);
      directKill = true;
      return true;
    } catch (err) {
      if (err instanceof Deno.errors.PermissionDenied) return true; // EPERM: it exists, owned by someone else
      if (!(err instanceof Deno.errors.NotCapable)) return false; // ESRCH
      directKill = false;
    }
  }
  return new Deno.Command("bash", {
    args: ["-c", `kill -0 -- -${pgid} 2>/dev/null`],
    stdin: "null",
    stdout: "null",
    stderr: "null",
  }).outputSync().success;
}

function procInfo(pid: number): ProcInfo | undefined {
  if (Deno.build.os === "linux" && directProc !== false) {
    try {
      return parseProcStat(Deno.readTextFileSync(`/proc/${pid}/stat`));
    } catch (err) {
      if (!isDenied(err)) return undefined;
      directProc = false;
    }
  }
  if (Deno.build.os === "linux") return parseProcStat(bashOutputSync(`cat /proc/${pid}/stat 2>/dev/null`));
  return processTable().find((p) => p.pid === pid);
}

/**
 * Whether a group we started still runs and still is ours. A live leader must
 * have the recorded start time; without a leader, a member must carry our
 * marker (a pid is not reused while its group lives, so this only matters
 * after the whole group has died). Without `table`, a cheap existence probe
 * comes first and the process table is only scanned when the leader is gone.
 */
export function groupState(ref: GroupRef, table?: ProcInfo[]): GroupState {
  if (!table) {
    if (!groupExists(ref.pgid)) return "gone";
    const leader = procInfo(ref.pgid);
    if (leader && leader.pgid === ref.pgid && isLive(leader)) {
      return leader.startTime === ref.startTime ? "ours" : "foreign";
    }
    table = processTable();
  }
  const members = table.filter((p) => p.pgid === ref.pgid && isLive(p));
  if (members.length === 0) return "gone";
  const leader = members.find((p) => p.pid === ref.pgid);
  if (leader) return leader.startTime === ref.startTime ? "ours" : "foreign";
  return members.some((p) => environMarker(p.pid) === ref.marker) ? "ours" : "foreign";
}

/**
 * Sends `signal` to every process of group `pgid`. Uses `Deno.kill(-pgid)`
 * when Deno allows it (unscoped `--allow-run`), else `kill -SIG -- -PGID`
 * through bash. A group that is already gone is not an error.
 */
export function signalGroup(pgid: number, signal: "SIGTERM" | "SIGKILL" | "SIGSTOP" | "SIGCONT"): void {
  if (!Number.isInteger(pgid) || pgid <= 1) {
    throw new RangeError(`Refusing to signal process group "${pgid}"`);
  }
  if (directKill !== false) {
    try {
      Deno.kill(-pgid, signal);
      directKill = true;
      return;
    } catch (err) {
      if (!isDenied(err)) return; // ESRCH: nothing left to signal
      directKill = false;
    }
  }
  bashOutputSync(`kill -${signal.slice(3)} -- -${pgid} 2>/dev/null`);
}

/**
 * Sends `signal` to each of `pids` (`Deno.kill`, else `kill` through bash).
 * Processes that are already gone are skipped silently.
 */
export function signalProcesses(pids: readonly number[], signal: "SIGTERM" | "SIGKILL"): void {
  const targets = pids.filter((p) => Number.isInteger(p) && p > 1 && p !== Deno.pid);
  if (targets.length === 0) return;
  const rest: number[] = [];
  for (const pid of targets) {
    if (directKill === false) {
      rest.push(pid);
      continue;
    }
    try {
      Deno.kill(pid, signal);
      directKill = true;
    } catch (err) {
      if (!isDenied(err)) continue; // ESRCH
      directKill = false;
      rest.push(pid);
    }
  }
  if (rest.length) bashOutputSync(`kill -${signal.slice(3)} ${rest.join(" ")} 2>/dev/null`);
}

/** A task marker that may go into a shell command line and a file search. */
const SAFE_MARKER = /^[A-Za-z0-9_-]{1,64}$/;

/**
 * Live processes (Linux) whose environment carries {@link TASK_MARKER_ENV}
 * set to `marker`: a command's processes that left its group and session.
 * Empty elsewhere, and for a marker that is not a plain word.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { processesWithMarker } from "./process_group.ts";
 * assert.deepEqual(processesWithMarker("no-such-marker-0"), []);
 * ```
 */
export function processesWithMarker(marker: string): number[] {
  if (Deno.build.os !== "linux" || !SAFE_MARKER.test(marker)) return [];
  const needle = `${TASK_MARKER_ENV}=${marker}`;
  const live = new Set(processTable().filter(isLive).map((p) => p.pid));
  if (directProc !== false) {
    try {
      const found: number[] = [];
      for (const pid of live) {
        if (pid === Deno.pid) continue;
        try {
          const env = Deno.readTextFileSync(`/proc/${pid}/environ`);
          if (env.startsWith(`${needle}\0`) || env.includes(`\0${needle}\0`) || env === needle) {
            found.push(pid);
          }
        } catch (err) {
          if (isDenied(err) && !(err instanceof Deno.errors.PermissionDenied)) throw err;
          // ended meanwhile, or another user's
        }
      }
      return found;
    } catch (err) {
      if (!isDenied(err)) return [];
      directProc = false;
    }
  }
  const text = bashOutputSync(`grep -lzx -- '${needle}' /proc/[0-9]*/environ 2>/dev/null`);
  return text.split("\n").map((l) => Number(/^\/proc\/(\d+)\/environ$/.exec(l)?.[1])).filter((p) =>
    live.has(p) && p !== Deno.pid
  );
}

/** Options of {@link terminateGroups}. */
export interface TerminateOptions {
  /** Time between SIGTERM and SIGKILL (ms). Default {@link DEFAULT_GRACE_MS}. */
  graceMs?: number;
  /** How often to look whether the groups are gone (ms). Default 25. */
  pollMs?: number;
}

/** Default time between SIGTERM and SIGKILL (ms). */
export const DEFAULT_GRACE_MS = 2000;
/** How long to wait for SIGKILL to take effect before giving up (ms). */
const KILL_WAIT_MS = 2000;

/** How {@link terminate} finds out whether a target still runs and signals it. */
export interface Terminator<R> {
  /** Whether `ref` still has a live process that is ours. */
  alive(ref: R): boolean;
  /** Sends `signal` to every process of `ref`. */
  signal(ref: R, signal: "SIGTERM" | "SIGKILL"): void;
}

const groups: Terminator<GroupRef> = {
  alive: (r) => groupState(r) === "ours",
  signal: (r, sig) => signalGroup(r.pgid, sig),
};

/**
 * Stops targets: SIGTERM, then SIGKILL to those still alive after the grace
 * period (sent again at each look, so that processes forked meanwhile get it
 * too). Only targets that are still alive and ours are signalled. Resolves when
 * every target is gone (or SIGKILL had `KILL_WAIT_MS` to work); returns the
 * targets that needed SIGKILL.
 */
export async function terminate<R>(
  refs: readonly R[],
  how: Terminator<R>,
  options: TerminateOptions = {},
): Promise<R[]> {
  const graceMs = options.graceMs ?? DEFAULT_GRACE_MS;
  const pollMs = options.pollMs ?? 25;
  let alive = refs.filter((r) => how.alive(r));
  alive.forEach((r) => how.signal(r, "SIGTERM"));
  const waitGone = async (ms: number, again?: "SIGKILL") => {
    const end = Date.now() + ms;
    while (alive.length > 0 && Date.now() < end) {
      await new Promise((r) => setTimeout(r, pollMs));
      alive = alive.filter((r) => how.alive(r));
      if (again) alive.forEach((r) => how.signal(r, again));
    }
  };
  await waitGone(graceMs);
  const killed = [...alive];
  alive.forEach((r) => how.signal(r, "SIGKILL"));
  await waitGone(KILL_WAIT_MS, "SIGKILL");
  return killed;
}

/** Like {@link terminate}, blocking: for `unload` handlers and start-up reaping. */
export function terminateSync<R>(
  refs: readonly R[],
  how: Terminator<R>,
  options: TerminateOptions = {},
): R[] {
  const graceMs = options.graceMs ?? DEFAULT_GRACE_MS;
  const pollMs = options.pollMs ?? 10;
  const cell = new Int32Array(new SharedArrayBuffer(4));
  let alive = refs.filter((r) => how.alive(r));
  alive.forEach((r) => how.signal(r, "SIGTERM"));
  const waitGone = (ms: number, again?: "SIGKILL") => {
    const end = Date.now() + ms;
    while (alive.length > 0 && Date.now() < end) {
      Atomics.wait(cell, 0, 0, pollMs);
      alive = alive.filter((r) => how.alive(r));
      if (again) alive.forEach((r) => how.signal(r, again));
    }
  };
  waitGone(graceMs);
  const killed = [...alive];
  alive.forEach((r) => how.signal(r, "SIGKILL"));
  waitGone(KILL_WAIT_MS, "SIGKILL");
  return killed;
}

/**
 * Stops process groups with {@link terminate}: the whole group gets each signal.
 */
export function terminateGroups(
  refs: readonly GroupRef[],
  options: TerminateOptions = {},
): Promise<GroupRef[]> {
  return terminate(refs, groups, options);
}

/** Like {@link terminateGroups}, blocking: for `unload` handlers and start-up reaping. */
export function terminateGroupsSync(refs: readonly GroupRef[], options: TerminateOptions = {}): GroupRef[] {
  return terminateSync(refs, groups, options);
}

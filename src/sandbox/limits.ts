/**
 * Process-count and memory limits for one sandboxed command (THREATS.md P8:
 * fork bombs and memory hogs in the sandbox are capped).
 *
 * Which mechanism applies:
 * - **cgroup v2**, where our own cgroup already delegates the `pids` and
 *   `memory` controllers to its children, or we sit in the root cgroup: a
 *   child cgroup per command with `pids.max`, `memory.max` and
 *   `memory.swap.max = 0`. (A process in a non-root cgroup without delegation
 *   cannot enable controllers for its children: the no-internal-processes rule.)
 * - **cgroup v1**, where the `pids` and `memory` hierarchies are mounted
 *   writable (containers and CI machines as root): a child of our own cgroup in
 *   each with `pids.max` and `memory.limit_in_bytes` (and `memsw` when swap is
 *   accounted).
 * - **rlimits** otherwise: `RLIMIT_DATA` (per process, counts heap and private
 *   mappings, so V8's address-space reservations still work) and
 *   `RLIMIT_NPROC`. `RLIMIT_NPROC` counts every task of the real uid on the
 *   host (a user namespace counts its tasks towards its creator too), so the
 *   limit is set to the uid's current task count plus `maxProcesses`; the kernel
 *   never applies it to uid 0, so as root without a cgroup there is no process cap.
 *
 * The child cgroup's `cgroup.procs` is bound into the sandbox and the command's
 * first process (a tiny `sh` inside the sandbox) writes its own pid there
 * before it `exec`s the command: nothing of the command ever runs outside the
 * cgroup, and no extra program runs outside the sandbox.
 *
 * @module
 */

/** Default cap on the processes (tasks) of one sandboxed command. */
export const DEFAULT_MAX_PROCESSES = 512;
/** Default cap on the memory of one sandboxed command (MiB). */
export const DEFAULT_MAX_MEMORY_MIB = 2048;
/** Where, inside the sandbox, the `cgroup.procs` files of the command's cgroups are bound. */
export const LIMITS_DIR_INSIDE = "/run/.paddock-limits";
/** How long `release` keeps trying to remove a cgroup whose last tasks are still exiting (ms). */
const RELEASE_WAIT_MS = 2000;

/** How a command's limits are enforced. */
export type LimitMechanism = "cgroup2" | "cgroup1" | "rlimit";

/** Options of {@link applyLimits}. */
export interface LimitOptions {
  /** Most processes (tasks) at once. Default {@link DEFAULT_MAX_PROCESSES}. */
  maxProcesses?: number;
  /** Most memory, MiB. Default {@link DEFAULT_MAX_MEMORY_MIB}. */
  maxMemoryMiB?: number;
  /** `auto`: a cgroup where one can be made, else rlimits; `rlimit`: rlimits only. Default `auto`. */
  mechanism?: "auto" | "rlimit";
}

/** The limits of one command: what to bind, what to run first inside, and how to clean up. */
export interface Limits {
  /** The mechanism that applies. */
  mechanism: LimitMechanism;
  /** `[host cgroup.procs file, path inside the sandbox]` pairs to bind writable. */
  binds: [string, string][];
  /** Argv prefix run inside the sandbox: enters the cgroup or sets the rlimits, then `exec`s the command. */
  wrapper: string[];
  /** What applies, for people: `cgroup v1: pids.max=512, memory 2048 MiB`. */
  detail: string;
  /** Removes the command's cgroups once it exited; never throws. */
  release(): Promise<void>;
}

function positive(name: string, value: number): number {
  if (!Number.isInteger(value) || value <= 0) {
    throw new TypeError(`Invalid sandbox limit "${name}": expected a positive integer, got ${value}`);
  }
  return value;
}

let counter = 0;

/**
 * Prepares the limits of one command. Call `release()` after it exited.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { applyLimits } from "./limits.ts";
 * const limits = applyLimits({ maxProcesses: 64, maxMemoryMiB: 256, mechanism: "rlimit" });
 * assert.equal(limits.mechanism, "rlimit");
 * assert.match(limits.wrapper[2], /ulimit -d 262144/);
 * await limits.release();
 * ```
 */
export function applyLimits(options: LimitOptions = {}): Limits {
  const maxProcesses = positive("maxProcesses", options.maxProcesses ?? DEFAULT_MAX_PROCESSES);
  const maxMemoryMiB = positive("maxMemoryMiB", options.maxMemoryMiB ?? DEFAULT_MAX_MEMORY_MIB);
  if (options.mechanism !== "rlimit" && Deno.build.os === "linux") {
    const made = makeCgroups(maxProcesses, maxMemoryMiB);
    if (made) return made;
  }
  return rlimits(maxProcesses, maxMemoryMiB);
}

function rlimits(maxProcesses: number, maxMemoryMiB: number): Limits {
  const steps = [`ulimit -d ${maxMemoryMiB * 1024} 2>/dev/null`];
  const uid = currentUid();
  let nproc = "no process cap (uid 0 is exempt from RLIMIT_NPROC)";
  if (uid !== undefined && uid !== 0) {
    const base = tasksOfUid(uid);
    if (base !== undefined) {
      const limit = base + maxProcesses;
      // bash knows -u, dash and busybox -p
      steps.push(`{ ulimit -u ${limit} 2>/dev/null || ulimit -p ${limit} 2>/dev/null; }`);
      nproc = `RLIMIT_NPROC=${limit} (${base} tasks of uid ${uid} + ${maxProcesses})`;
    } else nproc = "no process cap (the uid's tasks could not be counted)";
  } else if (uid === undefined) nproc = "no process cap (the uid is unknown)";
  return {
    mechanism: "rlimit",
    binds: [],
    wrapper: ["/bin/sh", "-c", `${steps.join("; ")}; exec "$@"`, "paddock-sandbox"],
    detail: `rlimits: RLIMIT_DATA=${maxMemoryMiB} MiB per process, ${nproc}`,
    release: () => Promise.resolve(),
  };
}

interface Hierarchy {
  /** Folder of our own cgroup in this hierarchy. */
  dir: string;
  version: 1 | 2;
  controllers: string[];
}

function makeCgroups(maxProcesses: number, maxMemoryMiB: number): Limits | undefined {
  let hierarchies: Hierarchy[];
  try {
    hierarchies = ownCgroups();
  } catch {
    return undefined; // not readable (Deno permissions) or not Linux-like
  }
  const bytes = String(maxMemoryMiB * 1024 * 1024);
  const name = `paddock-${Deno.pid}-${++counter}-${crypto.randomUUID().slice(0, 4)}`;
  const v2 = hierarchies.find((h) => h.version === 2);
  if (v2 && delegates(v2.dir)) {
    const made = makeChildren([v2.dir], name, (dir) => {
      write(`${dir}/pids.max`, String(maxProcesses));
      write(`${dir}/memory.max`, bytes);
      tryWrite(`${dir}/memory.swap.max`, "0");
    });
    if (made) {
      return cgroupLimits(
        "cgroup2",
        made,
        `cgroup v2: pids.max=${maxProcesses}, memory.max=${maxMemoryMiB} MiB`,
      );
    }
  }
  const pids = hierarchies.find((h) => h.version === 1 && h.controllers.includes("pids"));
  const memory = hierarchies.find((h) => h.version === 1 && h.controllers.includes("memory"));
  if (pids && memory) {
    const made = makeChildren([pids.dir, memory.dir], name, (dir, i) => {
      if (i === 0) return write(`${dir}/pids.max`, String(maxProcesses));
      write(`${dir}/memory.limit_in_bytes`, bytes);
      tryWrite(`${dir}/memory.memsw.limit_in_bytes`, bytes);
    });
    if (made) {
      return cgroupLimits(
        "cgroup1",
        made,
        `cgroup v1: pids.max=${maxProcesses}, memory.limit_in_bytes=${maxMemoryMiB} MiB`,
      );
    }
  }
  return undefined;
}

function cgroupLimits(mechanism: LimitMechanism, dirs: string[], detail: string): Limits {
  const binds = dirs.map((dir, i): [string, string] => [`${dir}/cgroup.procs`, `${LIMITS_DIR_INSIDE}/${i}`]);
  const enter = binds.map(([, inside]) => `echo $$ > ${inside}`).join(" && ");
  const script =
    `${enter} || { echo "paddock: cannot enter the sandbox's limits cgroup" >&2; exit 126; }; exec "$@"`;
  return {
    mechanism,
    binds,
    wrapper: ["/bin/sh", "-c", script, "paddock-sandbox"],
    detail,
    release: () => removeCgroups(dirs),
  };
}

/**
 * A cgroup without limits that only holds one command's processes, so that
 * every one of them can be found and killed, also those that left its process
 * group and session (unsandboxed Bash, `src/tasks/containment.ts`). The
 * command's shell enters it by writing its pid to `procs`. cgroup v2 where
 * we own our cgroup's `cgroup.procs` (root, or a delegated subtree), else the
 * v1 `pids` hierarchy on the same terms; undefined where neither applies.
 */
export interface TrackingCgroup {
  /** The cgroup's folder. */
  dir: string;
  /** Its `cgroup.procs` file. */
  procs: string;
  /** Removes the cgroup once it is empty; never throws. */
  release(): Promise<void>;
}

/**
 * Makes a {@link TrackingCgroup}, or returns undefined where Paddock may not.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { trackingCgroup } from "./limits.ts";
 * const cgroup = trackingCgroup();
 * if (cgroup) {
 *   assert.ok(cgroup.procs.endsWith("/cgroup.procs"));
 *   await cgroup.release();
 * }
 * ```
 */
export function trackingCgroup(): TrackingCgroup | undefined {
  if (Deno.build.os !== "linux") return undefined;
  let hierarchies: Hierarchy[];
  try {
    hierarchies = ownCgroups();
  } catch {
    return undefined;
  }
  const uid = currentUid();
  // moving a process between cgroups needs write access to their common ancestor's cgroup.procs
  const mayMove = (dir: string) => {
    try {
      return uid !== undefined && Deno.statSync(`${dir}/cgroup.procs`).uid === uid;
    } catch {
      return false;
    }
  };
  const candidates = [
    hierarchies.find((h) => h.version === 2),
    hierarchies.find((h) => h.version === 1 && h.controllers.includes("pids")),
  ];
  for (const h of candidates) {
    if (!h || !mayMove(h.dir)) continue;
    const name = `paddock-${Deno.pid}-${++counter}-${crypto.randomUUID().slice(0, 4)}`;
    const made = makeChildren([h.dir], name, () => {});
    if (made) return { dir: made[0], procs: `${made[0]}/cgroup.procs`, release: () => removeCgroups(made) };
  }
  return undefined;
}

/** Creates `name` under each parent and configures it; on any failure removes what it made. */
function makeChildren(
  parents: string[],
  name: string,
  configure: (dir: string, index: number) => void,
): string[] | undefined {
  const made: string[] = [];
  try {
    for (const [i, parent] of parents.entries()) {
      sweepStale(parent);
      const dir = `${parent}/${name}`;
      Deno.mkdirSync(dir);
      made.push(dir);
      configure(dir, i);
    }
    return made;
  } catch {
    for (const dir of made) tryRemove(dir);
    return undefined;
  }
}

async function removeCgroups(dirs: string[]): Promise<void> {
  const end = Date.now() + RELEASE_WAIT_MS;
  for (const dir of dirs) {
    // the last tasks of a killed PID namespace may take a moment to leave
    while (!tryRemove(dir) && Date.now() < end) await new Promise((r) => setTimeout(r, 20));
  }
}

function tryRemove(dir: string): boolean {
  try {
    Deno.removeSync(dir);
    return true;
  } catch (err) {
    return err instanceof Deno.errors.NotFound;
  }
}

/** Removes `paddock-<pid>-…` cgroups whose Paddock process is gone (a crash left them). */
function sweepStale(parent: string): void {
  try {
    for (const entry of Deno.readDirSync(parent)) {
      const pid = /^paddock-(\d+)-/.exec(entry.name)?.[1];
      if (!entry.isDirectory || pid === undefined || Number(pid) === Deno.pid) continue;
      try {
        Deno.statSync(`/proc/${pid}`);
      } catch {
        tryRemove(`${parent}/${entry.name}`);
      }
    }
  } catch {
    // not listable: nothing to sweep
  }
}

/** Whether children of the v2 cgroup `dir` can get the pids and memory controllers. */
function delegates(dir: string): boolean {
  const has = (file: string) => {
    try {
      const words = Deno.readTextFileSync(`${dir}/${file}`).split(/\s+/);
      return words.includes("pids") && words.includes("memory");
    } catch {
      return false;
    }
  };
  if (has("cgroup.subtree_control")) return true;
  // only the root cgroup may hold processes and enable controllers for its children
  if (!has("cgroup.controllers")) return false;
  try {
    Deno.statSync(`${dir}/cgroup.type`);
    return false; // a non-root cgroup: it has this file, the root has not
  } catch {
    return tryWrite(`${dir}/cgroup.subtree_control`, "+pids +memory") && has("cgroup.subtree_control");
  }
}

/** Our own cgroup folders, from /proc/self/cgroup and /proc/self/mountinfo. */
function ownCgroups(): Hierarchy[] {
  const own = new Map<string, string>(); // "" for v2, else the controller list
  for (const line of Deno.readTextFileSync("/proc/self/cgroup").split("\n")) {
    const m = /^\d+:([^:]*):(.*)$/.exec(line);
    if (m) own.set(m[1], m[2]);
  }
  const found: Hierarchy[] = [];
  for (const line of Deno.readTextFileSync("/proc/self/mountinfo").split("\n")) {
    const [left, right] = line.split(" - ");
    if (!right) continue;
    const fields = left.split(" ");
    const [fstype, , superOptions = ""] = right.split(" ");
    const root = unescapeMount(fields[3]);
    const mountPoint = unescapeMount(fields[4]);
    if (fstype === "cgroup2" && own.has("")) {
      const dir = inside(mountPoint, root, own.get("")!);
      if (dir) found.push({ dir, version: 2, controllers: [] });
    } else if (fstype === "cgroup") {
      const controllers: string[] = superOptions.split(",").filter((o) => o === "pids" || o === "memory");
      const key = [...own.keys()].find((k) => k.split(",").some((c) => controllers.includes(c)));
      if (controllers.length === 0 || key === undefined) continue;
      const dir = inside(mountPoint, root, own.get(key)!);
      if (dir) found.push({ dir, version: 1, controllers });
    }
  }
  return found;
}

/** The folder of cgroup `path` on a mount of the hierarchy's `root` at `mountPoint`. */
function inside(mountPoint: string, root: string, path: string): string | undefined {
  const rel = root === "/"
    ? path
    : path === root
    ? "/"
    : path.startsWith(`${root}/`)
    ? path.slice(root.length)
    : undefined;
  if (rel === undefined) return undefined;
  return rel === "/" ? mountPoint : `${mountPoint}${rel}`;
}

function unescapeMount(s: string): string {
  return s.replace(/\\([0-7]{3})/g, (_, oct) => String.fromCharCode(parseInt(oct, 8)));
}

function write(path: string, value: string): void {
  Deno.writeTextFileSync(path, value);
}

function tryWrite(path: string, value: string): boolean {
  try {
    write(path, value);
    return true;
  } catch {
    return false;
  }
}

function currentUid(): number | undefined {
  try {
    return Deno.uid() ?? undefined;
  } catch {
    return undefined;
  }
}

/** Tasks (threads included: RLIMIT_NPROC counts them) whose real uid is `uid`. */
function tasksOfUid(uid: number): number | undefined {
  try {
    let n = 0;
    for (const entry of Deno.readDirSync("/proc")) {
      if (!/^\d+$/.test(entry.name)) continue;
      try {
        const status = Deno.readTextFileSync(`/proc/${entry.name}/status`);
        if (Number(/^Uid:\s+(\d+)/m.exec(status)?.[1]) !== uid) continue;
        n += Number(/^Threads:\s+(\d+)/m.exec(status)?.[1] ?? 1);
      } catch {
        // exited meanwhile
      }
    }
    return n;
  } catch {
    return undefined;
  }
}

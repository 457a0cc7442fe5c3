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
      sysFs("mkdir", dir);
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
    sysFs("rmdir", dir);
    return true;
  } catch (err) {
    return err instanceof Deno.errors.NotFound;
  }
}

/** Whether process `pid` is known to be gone (Deno lets only `--allow-all` look in `/proc/<pid>`: bash looks then). */
function processGone(pid: number): boolean {
  try {
    Deno.statSync(`/proc/${pid}`);
    return false;
  } catch (err) {
    if (err instanceof Deno.errors.NotFound) return true;
    if (!(err instanceof Deno.errors.NotCapable)) return false;
  }
  try {
    const out = new Deno.Command("bash", {
      args: ["-c", `[ ! -e "/proc/$1" ]`, "paddock-cgroup", String(pid)],
      stdin: "null",
      stdout: "null",
      stderr: "null",
      clearEnv: true,
    }).outputSync();
    return out.success;
  } catch {
    return false;
  }
}

/** Removes `paddock-<pid>-…` cgroups whose Paddock process is gone (a crash left them). */
function sweepStale(parent: string): void {
  try {
    for (const name of sysSubdirs(parent)) {
      const pid = /^paddock-(\d+)-/.exec(name)?.[1];
      if (pid === undefined || Number(pid) === Deno.pid) continue;
      if (processGone(Number(pid))) tryRemove(`${parent}/${name}`);
    }
  } catch {
    // not listable: nothing to sweep
  }
}

/** Whether children of the v2 cgroup `dir` can get the pids and memory controllers. */
function delegates(dir: string): boolean {
  const has = (file: string) => {
    try {
      const words = sysRead(`${dir}/${file}`).split(/\s+/);
      return words.includes("pids") && words.includes("memory");
    } catch {
      return false;
    }
  };
  if (has("cgroup.subtree_control")) return true;
  // only the root cgroup may hold processes and enable controllers for its children
  if (!has("cgroup.controllers")) return false;
  // a non-root cgroup has `cgroup.type`, the root has not
  if (sysExists(`${dir}/cgroup.type`)) return false;
  return tryWrite(`${dir}/cgroup.subtree_control`, "+pids +memory") && has("cgroup.subtree_control");
}

/** Our own cgroup folders, from /proc/self/cgroup and /proc/self/mountinfo. */
function ownCgroups(): Hierarchy[] {
  const own = new Map<string, string>(); // "" for v2, else the controller list
  for (const line of procSelf("cgroup").split("\n")) {
    const m = /^\d+:([^:]*):(.*)$/.exec(line);
    if (m) own.set(m[1], m[2]);
  }
  const found: Hierarchy[] = [];
  for (const line of procSelf("mountinfo").split("\n")) {
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

const procCache = new Map<string, string>();

/** `/proc/self/<name>` of this process (read by bash under the computed flags: see {@link sysRead}). */
function procSelf(name: "cgroup" | "mountinfo"): string {
  let text = procCache.get(name);
  if (text === undefined) procCache.set(name, text = sysRead(`/proc/self/${name}`));
  return text;
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
  sysFs("write", path, value);
}

/**
 * Deno grants `/sys/…` and `/proc/<pid>/…` only with `--allow-all`, so where
 * it refuses (`NotCapable`, under the computed flags) these helpers have bash
 * (the Execute class's program, already granted; in this process's cgroup
 * and mount namespace) do it with shell builtins and `mkdir`/`rmdir`, the
 * paths and values passed as arguments, never as script text.
 */
function viaBash(script: string, ...args: string[]): Deno.CommandOutput {
  return new Deno.Command("bash", {
    args: ["-c", script, "paddock-cgroup", ...args],
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
    env: { PATH: "/usr/bin:/bin" },
    clearEnv: true,
  }).outputSync();
}

function bashFailure(op: string, path: string, out: Deno.CommandOutput): Error {
  if (out.code === 3) return new Deno.errors.NotFound(`"${path}" is gone`);
  return new Error(`Cannot ${op} "${path}": ${new TextDecoder().decode(out.stderr).trim()}`);
}

/** Makes or removes a cgroup folder, or writes a cgroup file (see {@link viaBash}). */
function sysFs(op: "mkdir" | "rmdir" | "write", path: string, value = ""): void {
  try {
    if (op === "mkdir") Deno.mkdirSync(path);
    else if (op === "rmdir") Deno.removeSync(path);
    else Deno.writeTextFileSync(path, value);
    return;
  } catch (err) {
    if (!(err instanceof Deno.errors.NotCapable)) throw err;
  }
  const script = {
    mkdir: `mkdir -- "$1"`,
    rmdir: `[ -e "$1" ] || exit 3; rmdir -- "$1"`,
    write: `printf '%s' "$2" > "$1"`,
  }[op];
  const out = viaBash(script, path, value);
  if (!out.success) throw bashFailure(op, path, out);
}

/** Reads a file under `/sys` or `/proc/self` (see {@link viaBash}). */
function sysRead(path: string): string {
  try {
    return Deno.readTextFileSync(path);
  } catch (err) {
    if (!(err instanceof Deno.errors.NotCapable)) throw err;
  }
  const out = viaBash(
    `[ -e "$1" ] || exit 3; while IFS= read -r l || [ -n "$l" ]; do printf '%s\\n' "$l"; done < "$1"`,
    path,
  );
  if (!out.success) throw bashFailure("read", path, out);
  return new TextDecoder().decode(out.stdout);
}

/** Whether a path under `/sys` exists (see {@link viaBash}). */
function sysExists(path: string): boolean {
  try {
    Deno.statSync(path);
    return true;
  } catch (err) {
    if (!(err instanceof Deno.errors.NotCapable)) return false;
  }
  return viaBash(`[ -e "$1" ]`, path).success;
}

/** The names of the folders in `dir` under `/sys` (see {@link viaBash}). */
function sysSubdirs(dir: string): string[] {
  try {
    return [...Deno.readDirSync(dir)].filter((e) => e.isDirectory).map((e) => e.name);
  } catch (err) {
    if (!(err instanceof Deno.errors.NotCapable)) throw err;
  }
  const out = viaBash(
    `for e in "$1"/*/; do [ -d "$e" ] && e=\${e%/} && printf '%s\\n' "\${e##*/}"; done; true`,
    dir,
  );
  if (!out.success) throw bashFailure("list", dir, out);
  return new TextDecoder().decode(out.stdout).split("\n").filter(Boolean);
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

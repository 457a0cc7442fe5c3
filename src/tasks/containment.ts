/**
 * Containment: how every process one unsandboxed command starts is kept
 * together, so that none outlives the command's timeout, TaskStop or the
 * runtime — `setsid`, `nohup`, double forks and daemons included (THREATS.md
 * P8). The first that works on this machine applies:
 *
 * 1. **`pid-namespace`**: `unshare --pid --fork --kill-child --mount-proc`
 *    (util-linux) where Paddock may make a PID namespace (root, or
 *    `CAP_SYS_ADMIN`). The shell is the namespace's first process: when it
 *    exits, or when `unshare` (the recorded group leader) is killed, the
 *    kernel kills everything else in it. Inside, `$$` is 1 and `/proc` shows
 *    only the command's processes; mounts the command makes stay inside.
 * 2. **`cgroup`**: a cgroup of its own without limits (`trackingCgroup` in
 *    `src/sandbox/limits.ts`), entered by the shell before it runs anything;
 *    processes cannot leave it (short of root writing to another cgroup), and
 *    stopping signals every process listed in it.
 * 3. **`pid-namespace`** in a new user namespace (`unshare --user
 *    --map-current-user …`) for unprivileged users whose kernel allows it. The
 *    uid stays the same, but files of other users (root's included) show as
 *    owned by the overflow id (`nobody`) and set-uid programs such as `sudo`
 *    gain nothing: choose `process-group` where that matters.
 * 4. **`process-group`**: the shell leads its own session and process group;
 *    stopping signals the group and also every process still in its session
 *    or still carrying its task marker in its environment (a `/proc` scan).
 *    A process that both leaves the session and clears its environment
 *    (`env -i setsid …`) escapes this last resort.
 *
 * Sandboxed commands need none of this: bubblewrap gives each its own PID
 * namespace, which dies with it.
 *
 * @module
 */
import { UnavailableError } from "../errors.ts";
import { trackingCgroup } from "../sandbox/limits.ts";

/**
 * How the processes of one command are kept together.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { CONTAINMENTS } from "./containment.ts";
 * assert.deepEqual([...CONTAINMENTS], ["pid-namespace", "cgroup", "process-group"]);
 * ```
 */
export const CONTAINMENTS = ["pid-namespace", "cgroup", "process-group"] as const;

/** One of {@link CONTAINMENTS}. */
export type Containment = typeof CONTAINMENTS[number];

/** What a caller may ask for: `auto` takes the first that works here (see the module doc). */
export type ContainmentChoice = "auto" | Containment;

/** How one command is contained. */
export interface Contained {
  /** The mechanism. */
  kind: Containment;
  /** Program and arguments put before the shell's argv (`unshare …`), or none. */
  prefix: string[];
  /** Shell code run first by the command's shell (entering the cgroup), or "". */
  prelude: string;
  /** The cgroup folders the command runs in (for the kill and the ledger). */
  cgroups: string[];
  /** Removes the cgroup once the command and everything it started are gone; never throws. */
  release(): Promise<void>;
}

const UNSHARE = "unshare";
const NAMESPACE_ARGS = ["--pid", "--fork", "--kill-child", "--mount-proc"];
const USER_NAMESPACE_ARGS = ["--user", "--map-current-user", ...NAMESPACE_ARGS];
const probes = new Map<string, boolean>();

/** Whether `unshare <args> true` works here (asked once per argument list). */
function unshareWorks(args: readonly string[]): boolean {
  if (Deno.build.os !== "linux") return false;
  const key = args.join(" ");
  let works = probes.get(key);
  if (works === undefined) {
    try {
      works = new Deno.Command(UNSHARE, {
        args: [...args, "true"],
        stdin: "null",
        stdout: "null",
        stderr: "null",
        clearEnv: true,
      }).outputSync().success;
    } catch {
      works = false; // not installed, or Deno may not run it
    }
    probes.set(key, works);
  }
  return works;
}

function namespace(args: readonly string[]): Contained {
  return {
    kind: "pid-namespace",
    prefix: [UNSHARE, ...args, "--"],
    prelude: "",
    cgroups: [],
    release: () => Promise.resolve(),
  };
}

function quote(word: string): string {
  return `'${word.replaceAll("'", `'\\''`)}'`;
}

/**
 * Sets up the containment of one unsandboxed command. Call `release()` once
 * the command and all it started are gone. An explicit `choice` that cannot
 * apply here throws an {@link UnavailableError}; `auto` always finds one.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { containCommand } from "./containment.ts";
 * const c = containCommand("process-group");
 * assert.equal(c.kind, "process-group");
 * assert.deepEqual(c.prefix, []);
 * await c.release();
 * ```
 */
export function containCommand(choice: ContainmentChoice = "auto"): Contained {
  if ((choice === "auto" || choice === "pid-namespace") && unshareWorks(NAMESPACE_ARGS)) {
    return namespace(NAMESPACE_ARGS);
  }
  if (choice === "auto" || choice === "cgroup") {
    const cgroup = trackingCgroup();
    if (cgroup) {
      return {
        kind: "cgroup",
        prefix: [],
        // the shell moves itself in before it starts anything
        prelude: `{ echo $$ > ${quote(cgroup.procs)}; } 2>/dev/null\n`,
        cgroups: [cgroup.dir],
        release: cgroup.release,
      };
    }
  }
  if ((choice === "auto" || choice === "pid-namespace") && unshareWorks(USER_NAMESPACE_ARGS)) {
    return namespace(USER_NAMESPACE_ARGS);
  }
  if (choice === "auto" || choice === "process-group") {
    return { kind: "process-group", prefix: [], prelude: "", cgroups: [], release: () => Promise.resolve() };
  }
  throw new UnavailableError(
    `Cannot contain the command with "${choice}" on this machine: ${
      choice === "cgroup"
        ? "no cgroup can be made (cgroup v2 needs a delegated subtree, v1 a writable pids hierarchy)"
        : `"unshare" (util-linux) is missing, may not run, or may not make a PID namespace`
    }: use containment "auto"`,
  );
}

/**
 * The programs {@link containCommand} may run for `choice` (for `--allow-run`).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { containmentPrograms } from "./containment.ts";
 * assert.deepEqual(containmentPrograms("process-group"), []);
 * ```
 */
export function containmentPrograms(choice: ContainmentChoice = "auto"): string[] {
  if (Deno.build.os !== "linux" || choice === "process-group" || choice === "cgroup") return [];
  return [UNSHARE];
}

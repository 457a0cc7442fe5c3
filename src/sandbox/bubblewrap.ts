/**
 * The bubblewrap (`bwrap`) command line for Bash on Linux.
 *
 * Privilege: a user namespace (`--unshare-user`) in which every capability
 * is dropped (`--cap-drop ALL`, also from the bounding set) and, where
 * bubblewrap supports it, no further user namespace can be made
 * (`--disable-userns`); bubblewrap sets `PR_SET_NO_NEW_PRIVS` itself, so
 * set-uid programs gain nothing. So `mount`, `umount`, remounting `/`
 * read-write and `mknod` fail, as root too. The uid and gid inside are the
 * caller's (bubblewrap maps them 1:1): the kernel checks files against that
 * outside uid either way, so files the command creates belong to the real
 * user, and another number inside would only mislead programs.
 *
 * Isolation: its own PID namespace (a `setsid` escapee still dies with the
 * sandbox; `--die-with-parent`), IPC, UTS and cgroup namespaces, a new
 * terminal session (`--new-session`: no `TIOCSTI` typing into the caller's
 * terminal), no network unless allowed.
 *
 * File system: the whole host read-only, fresh `/dev` and `/proc`, private
 * `/tmp`, `/var/tmp`, `/dev/shm` and `/run` (host sockets such as docker's live there),
 * then the planned mounts: the writable roots, the protected paths inside them
 * and the hidden credential stores (see `protect.ts`).
 *
 * @module
 */

/** One mount of the plan, applied in order after the base file system. */
export interface MountOp {
  /**
   * `bind`: writable bind onto itself (also pins a folder: it cannot be renamed);
   * `ro-bind`: read-only bind onto itself; `tmpfs`: an empty private folder over it;
   * `hide-file`: `/dev/null` over a file (reads as empty, writes vanish).
   */
  kind: "bind" | "ro-bind" | "tmpfs" | "hide-file";
  /** Absolute path. */
  path: string;
}

/** Options bubblewrap versions differ on. */
export interface BubblewrapFeatures {
  /** `--disable-userns` (bubblewrap 0.8). */
  disableUserns: boolean;
  /** `--size` for `--tmpfs` (bubblewrap 0.8). */
  tmpfsSize: boolean;
}

/** What {@link bubblewrapArgs} needs. */
export interface BubblewrapSpec {
  /** Folders the command may write (the workspace roots); bound writable when `mounts` is not given. */
  writable: readonly string[];
  /** Single files the command may write (created beforehand). */
  writableFiles?: readonly string[];
  /** Keep the host network. Default false: a private network namespace with only loopback. */
  allowNetwork?: boolean;
  /** Working directory inside the sandbox. */
  cwd: string;
  /** The planned mounts (roots, protections, hidden paths). Default: a writable bind of each of `writable`. */
  mounts?: readonly MountOp[];
  /** Paths under `/run` kept (read-only, when present), e.g. the resolver's `resolv.conf`. Default none. */
  runPaths?: readonly string[];
  /** Writable binds `[host path, path inside]` made last (the limits' `cgroup.procs`). Default none. */
  binds?: readonly (readonly [string, string])[];
  /** Size cap of the private `/tmp`, `/var/tmp` and `/dev/shm`, bytes. Default: tmpfs's own (half the RAM). */
  tmpfsBytes?: number;
  /** What this bubblewrap supports. Default: everything. */
  features?: BubblewrapFeatures;
}

const ALL_FEATURES: BubblewrapFeatures = { disableUserns: true, tmpfsSize: true };

/**
 * The `bwrap` arguments that come before the command.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { bubblewrapArgs } from "./bubblewrap.ts";
 * const args = bubblewrapArgs({ writable: ["/w"], cwd: "/w" });
 * assert.ok(args.includes("--unshare-user") && args.includes("--cap-drop"));
 * assert.ok(args.includes("--unshare-net") && args.includes("--unshare-pid"));
 * ```
 */
export function bubblewrapArgs(spec: BubblewrapSpec): string[] {
  const features = spec.features ?? ALL_FEATURES;
  const args = ["--unshare-user"];
  if (features.disableUserns) args.push("--disable-userns");
  args.push("--unshare-pid", "--unshare-ipc", "--unshare-uts", "--unshare-cgroup-try");
  if (!spec.allowNetwork) args.push("--unshare-net");
  args.push("--die-with-parent", "--new-session", "--cap-drop", "ALL");
  args.push("--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc");
  for (const dir of ["/tmp", "/var/tmp", "/dev/shm"]) {
    if (spec.tmpfsBytes && features.tmpfsSize) args.push("--size", String(spec.tmpfsBytes));
    args.push("--tmpfs", dir);
  }
  // host sockets (docker, containerd, dbus…) live under /run: a uid mapped to root could use them
  args.push("--tmpfs", "/run");
  for (const path of ["/run/current-system", ...(spec.runPaths ?? [])]) {
    args.push("--ro-bind-try", path, path);
  }
  const mounts = spec.mounts ?? spec.writable.map((path): MountOp => ({ kind: "bind", path }));
  for (const m of mounts) {
    if (m.kind === "bind") args.push("--bind", m.path, m.path);
    else if (m.kind === "ro-bind") args.push("--ro-bind", m.path, m.path);
    else if (m.kind === "tmpfs") args.push("--tmpfs", m.path);
    // a device needs --dev-bind (binds are nodev): read-only it could not even be read
    else args.push("--dev-bind", "/dev/null", m.path);
  }
  for (const file of spec.writableFiles ?? []) args.push("--bind", file, file);
  for (const [from, to] of spec.binds ?? []) args.push("--bind", from, to);
  args.push("--chdir", spec.cwd, "--");
  return args;
}

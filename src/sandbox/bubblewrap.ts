/**
 * The bubblewrap (`bwrap`) command line for Bash on Linux: the whole file
 * system read-only, the workspace roots (and a few named paths) writable, a
 * private `/tmp`, fresh `/dev` and `/proc`, its own PID namespace (so a
 * `setsid` escapee still dies with the sandbox), and no network unless
 * allowed.
 *
 * @module
 */

/** What {@link bubblewrapArgs} needs. */
export interface BubblewrapSpec {
  /** Folders the command may write (the workspace roots). */
  writable: readonly string[];
  /** Single files the command may write (created beforehand). */
  writableFiles?: readonly string[];
  /** Keep the host network. Default false: a private network namespace with only loopback. */
  allowNetwork?: boolean;
  /** Working directory inside the sandbox. */
  cwd: string;
}

/**
 * The `bwrap` arguments that come before the command.
 *
 * @example
 * ```ts
 * import { bubblewrapArgs } from "./bubblewrap.ts";
 * const args = bubblewrapArgs({ writable: ["/w"], cwd: "/w" });
 * console.assert(args.includes("--unshare-net") && args.includes("--unshare-pid"));
 * ```
 */
export function bubblewrapArgs(spec: BubblewrapSpec): string[] {
  const args = [
    "--ro-bind",
    "/",
    "/",
    "--dev",
    "/dev",
    "--proc",
    "/proc",
    "--tmpfs",
    "/tmp",
    "--tmpfs",
    "/var/tmp",
  ];
  // without network, hide host sockets (docker, dbus…) that a read-only bind would still let it reach
  if (!spec.allowNetwork) args.push("--tmpfs", "/run");
  for (const dir of spec.writable) args.push("--bind", dir, dir);
  for (const file of spec.writableFiles ?? []) args.push("--bind", file, file);
  args.push(
    "--unshare-pid",
    "--unshare-ipc",
    "--unshare-uts",
    "--unshare-cgroup-try",
    "--die-with-parent",
  );
  if (!spec.allowNetwork) args.push("--unshare-net");
  args.push("--chdir", spec.cwd, "--");
  return args;
}

/**
 * The sandbox-exec (Seatbelt) profile for Bash on macOS: reads allowed
 * everywhere, writes only inside the workspace roots and a few named paths,
 * no network unless allowed. macOS has no private `/tmp` or PID namespace:
 * `TMPDIR` should point inside a writable folder.
 *
 * @module
 */

/** What {@link seatbeltProfile} needs. */
export interface SeatbeltSpec {
  /** Folders the command may write. */
  writable: readonly string[];
  /** Single files the command may write. */
  writableFiles?: readonly string[];
  /** Allow network access. Default false. */
  allowNetwork?: boolean;
}

function quote(path: string): string {
  return `"${path.replaceAll("\\", "\\\\").replaceAll('"', '\\"')}"`;
}

/**
 * The profile text given to `sandbox-exec -p`.
 *
 * @example
 * ```ts
 * import { seatbeltProfile } from "./seatbelt.ts";
 * const p = seatbeltProfile({ writable: ["/Users/me/proj"] });
 * console.assert(p.includes('(subpath "/Users/me/proj")') && !p.includes("(allow network*)"));
 * ```
 */
export function seatbeltProfile(spec: SeatbeltSpec): string {
  const writes = [
    ...spec.writable.map((d) => `(subpath ${quote(d)})`),
    ...(spec.writableFiles ?? []).map((f) => `(literal ${quote(f)})`),
    '(literal "/dev/null")',
    '(literal "/dev/zero")',
    '(literal "/dev/tty")',
    '(subpath "/dev/fd")',
  ];
  return [
    "(version 1)",
    "(deny default)",
    "(allow process-exec process-fork signal process-info* sysctl-read mach-lookup ipc-posix-shm* pseudo-tty)",
    "(allow file-read* file-ioctl)",
    `(allow file-write* ${writes.join(" ")})`,
    ...(spec.allowNetwork ? ["(allow network*)"] : []),
    "",
  ].join("\n");
}

/** The `sandbox-exec` arguments that come before the command. */
export function seatbeltArgs(spec: SeatbeltSpec): string[] {
  return ["-p", seatbeltProfile(spec)];
}

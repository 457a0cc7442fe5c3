/**
 * What Deno must grant for the OS sandbox to start, for the flag computation
 * (`paddock perms`). Kept apart from `sandbox.ts` so the runtime can ask
 * without loading the sandbox itself.
 *
 * @module
 */
import { DEFAULT_HIDDEN_PATHS } from "./protect.ts";
import type { SandboxSettings } from "./sandbox.ts";

/** SSH host private keys hidden when `/etc/ssh` cannot be listed (Deno grants no read on the folder). */
const KNOWN_HOST_KEYS = ["rsa", "ecdsa", "ed25519", "dsa"].map((k) => `/etc/ssh/ssh_host_${k}_key`);

/**
 * What Deno must grant for the sandbox to start (`paddock perms` adds it when
 * Bash is sandboxed): read and write on the roots (the placeholders of missing
 * protected paths, `protect.ts`), read on the hidden paths (to tell a file
 * from a folder), and `/etc/resolv.conf` when the network is kept. Running
 * `bwrap` itself is the Bash tool's `programs`. The command's cgroup
 * (`limits.ts`) needs no grant: Deno allows `/sys/…` and `/proc/self/…` only
 * with `--allow-all`, so `limits.ts` has bash, which the Execute class runs
 * anyway, read and write those files.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { sandboxPermissions } from "./needs.ts";
 * const needs = sandboxPermissions(["/w"], { home: "/home/ada" });
 * assert.ok(needs.write.includes("/w") && needs.read.includes("/home/ada/.ssh"));
 * ```
 */
export function sandboxPermissions(
  roots: readonly string[],
  options: { home?: string; xdgConfigHome?: string; settings?: SandboxSettings } = {},
): { read: string[]; write: string[] } {
  if (Deno.build.os !== "linux") return { read: [], write: [] };
  const settings = options.settings ?? {};
  const home = options.home;
  const hidden = [...(settings.hiddenPaths ?? DEFAULT_HIDDEN_PATHS), ...(settings.extraHiddenPaths ?? [])]
    .flatMap((p) => p.startsWith("/") ? [p] : home ? [`${home}/${p}`] : []);
  const writable = [...roots, ...(settings.writablePaths ?? [])];
  return {
    read: [
      ...writable,
      ...hidden,
      ...(settings.hiddenPaths ? [] : KNOWN_HOST_KEYS),
      // the user's Paddock folder where XDG_CONFIG_HOME moves it (hidden too: sandbox.ts)
      ...(!settings.hiddenPaths && options.xdgConfigHome?.startsWith("/")
        ? [`${options.xdgConfigHome}/paddock`]
        : []),
      ...(settings.allowNetwork ? ["/etc/resolv.conf"] : []),
    ],
    write: writable,
  };
}

/**
 * From the enabled tools to the minimal set of Deno permission flags, as a
 * pure function. Deno enforces these; our own checks come first.
 *
 * @module
 */
import type { SideEffect } from "./side_effect.ts";

/**
 * What one tool contributes to the flag computation.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { toDenoFlags, type ToolNeeds } from "./deno_flags.ts";
 * const grep: ToolNeeds = { name: "Grep", sideEffect: "ReadOnly", programs: ["/usr/bin/rg"] };
 * assert.ok(toDenoFlags({ tools: [grep], roots: ["/w"] }).includes("--allow-run=/usr/bin/rg"));
 * ```
 */
export interface ToolNeeds {
  /** Tool name. */
  name: string;
  /** Side-effect class. */
  sideEffect: SideEffect;
  /** Programs the tool runs besides its class default. */
  programs?: readonly string[];
}

/**
 * The inputs of {@link toDenoFlags}.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { type FlagPolicy, toDenoFlags } from "./deno_flags.ts";
 * const policy: FlagPolicy = {
 *   tools: [{ name: "Read", sideEffect: "ReadOnly" }, { name: "WebFetch", sideEffect: "Network" }],
 *   roots: ["/w"],
 *   hosts: ["deno.com"],
 * };
 * const flags = toDenoFlags(policy);
 * assert.ok(flags.includes("--allow-net=deno.com"));
 * assert.ok(flags.some((f) => f.startsWith("--allow-read=") && f.includes("/w")));
 * ```
 */
export interface FlagPolicy {
  /** The tools in use. */
  tools: readonly ToolNeeds[];
  /** Workspace roots (absolute). */
  roots: readonly string[];
  /** Session output folder (spilled results, task logs): read and write. */
  outputDir?: string;
  /** Hosts Network tools may reach; `["*"]` for any host. */
  hosts?: readonly string[];
  /** The model endpoint's host (`host:port`), needed by Spawns tools and the agent loop. */
  modelHost?: string;
  /** Environment variables the process reads. */
  env?: readonly string[];
  /** Extra paths to read (the runtime's own files, an rg binary's folder). */
  extraRead?: readonly string[];
  /** Extra programs to run (MCP stdio servers). */
  extraRun?: readonly string[];
  /** Extra hosts to reach (MCP HTTP servers). */
  extraNet?: readonly string[];
  /** Whether Bash runs inside bubblewrap (adds `bwrap` to the run list, and `sandboxRead`/`sandboxWrite`). */
  sandbox?: boolean;
  /** What the OS sandbox reads to start (hidden paths, `/proc/self/cgroup`…), when `sandbox` is on. */
  sandboxRead?: readonly string[];
  /** What the OS sandbox writes to start (placeholders in the roots, `/sys/fs/cgroup`), when `sandbox` is on. */
  sandboxWrite?: readonly string[];
}

/** Program the Execute class runs. */
export const SHELL_PROGRAM = "bash";
/** Where, under the first root, background tasks are recorded (the Execute class reads and writes it). */
export const TASK_LEDGER_DIR = ".paddock/tasks";
/** Program the OS sandbox runs on Linux. */
export const SANDBOX_PROGRAM = "bwrap";

/**
 * The granted sets a policy needs, before they are written as flags.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { neededPermissions, type PermissionSet } from "./deno_flags.ts";
 * const needs: PermissionSet = neededPermissions({
 *   tools: [{ name: "Bash", sideEffect: "Execute" }],
 *   roots: ["/w"],
 * });
 * assert.ok(needs.run.includes("bash"));
 * assert.deepEqual(needs.net, []);
 * ```
 */
export interface PermissionSet {
  /** Paths to read. */
  read: string[];
  /** Paths to write. */
  write: string[];
  /** Programs to run. */
  run: string[];
  /** Hosts to reach (`*` alone means any). */
  net: string[];
  /** Environment variables. */
  env: string[];
}

/**
 * Computes the permission sets a policy needs.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { neededPermissions } from "./deno_flags.ts";
 * const p = neededPermissions({ tools: [{ name: "Read", sideEffect: "ReadOnly" }], roots: ["/w"] });
 * assert.ok(p.read[0] === "/w" && p.write.length === 0);
 * ```
 */
export function neededPermissions(policy: FlagPolicy): PermissionSet {
  const read = new Set<string>();
  const write = new Set<string>();
  const run = new Set<string>();
  const net = new Set<string>();
  const env = new Set<string>(policy.env ?? []);
  const roots = policy.roots;
  for (const tool of policy.tools) {
    switch (tool.sideEffect) {
      case "ReadOnly":
        roots.forEach((r) => read.add(r));
        break;
      case "Mutating":
        roots.forEach((r) => (read.add(r), write.add(r)));
        break;
      case "Execute":
        run.add(SHELL_PROGRAM);
        // the task ledger, so a runtime started after a crash can reap what this one left
        if (roots[0]) {
          (read.add(`${roots[0]}/${TASK_LEDGER_DIR}`), write.add(`${roots[0]}/${TASK_LEDGER_DIR}`));
        }
        if (policy.sandbox) {
          run.add(SANDBOX_PROGRAM);
          policy.sandboxRead?.forEach((p) => read.add(p));
          policy.sandboxWrite?.forEach((p) => write.add(p));
        }
        break;
      case "Network":
        (policy.hosts ?? []).forEach((h) => net.add(h));
        break;
      case "Spawns": // the model host, added below, is what a sub-agent needs
      case "None":
      case "Blocking":
        break;
    }
    tool.programs?.forEach((p) => run.add(p));
  }
  if (policy.tools.length > 0 && policy.outputDir) {
    read.add(policy.outputDir);
    write.add(policy.outputDir);
  }
  if (policy.modelHost) net.add(policy.modelHost);
  policy.extraRun?.forEach((p) => run.add(p));
  policy.extraNet?.forEach((h) => net.add(h));
  policy.extraRead?.forEach((p) => read.add(p));
  const netList = net.has("*") ? ["*"] : [...net];
  return {
    read: foldPaths(read),
    write: foldPaths(write),
    run: [...run],
    net: netList,
    env: [...env],
  };
}

/** Drops paths that lie under another path of the set, keeping the order. */
function foldPaths(paths: Set<string>): string[] {
  const list = [...paths];
  const under = (p: string, r: string) => p !== r && p.startsWith(r.endsWith("/") ? r : `${r}/`);
  return list.filter((p) => !list.some((r) => under(p, r)));
}

/**
 * The minimal flag list for a policy, always starting with `--no-prompt`.
 * Throws on a value Deno's flag syntax cannot carry (a comma in a path).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { toDenoFlags } from "./deno_flags.ts";
 * const flags = toDenoFlags({
 *   tools: [{ name: "Edit", sideEffect: "Mutating" }, { name: "Bash", sideEffect: "Execute" }],
 *   roots: ["/w"],
 * });
 * assert.equal(flags.join(" "), "--no-prompt --allow-read=/w --allow-write=/w --allow-run=bash");
 * ```
 */
export function toDenoFlags(policy: FlagPolicy): string[] {
  const p = neededPermissions(policy);
  const flags = ["--no-prompt"];
  const add = (name: string, values: string[]) => {
    if (values.length === 0) return;
    for (const v of values) {
      if (v.includes(",")) {
        throw new TypeError(`Cannot grant "${v}" in --allow-${name}: Deno's flag lists cannot hold a comma`);
      }
    }
    flags.push(
      values.length === 1 && values[0] === "*" ? `--allow-${name}` : `--allow-${name}=${values.join(",")}`,
    );
  };
  add("read", p.read);
  add("write", p.write);
  add("run", p.run);
  add("net", p.net);
  add("env", p.env);
  return flags;
}

/** Quotes one shell word for display in a `deno run` line. */
export function shellQuote(word: string): string {
  return /^[A-Za-z0-9_\-=.,/:@+]+$/.test(word) ? word : `'${word.replaceAll("'", `'\\''`)}'`;
}

/**
 * The `deno run` line for a policy and an entry point.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { denoRunLine } from "./deno_flags.ts";
 * const line = denoRunLine({ tools: [], roots: ["/w"] }, "cli.ts", ["tools"]);
 * assert.equal(line, "deno run --no-prompt cli.ts tools");
 * ```
 */
export function denoRunLine(policy: FlagPolicy, entry: string, args: readonly string[] = []): string {
  return ["deno", "run", ...toDenoFlags(policy), entry, ...args].map(shellQuote).join(" ");
}

/**
 * The start-up check: what the process really holds, per tool. A tool whose
 * permission is missing is disabled with a notice naming the flag that would
 * enable it; permissions held beyond the need are reported.
 *
 * @module
 */
import { join } from "node:path";
import { type FlagPolicy, neededPermissions, type PermissionSet, type ToolNeeds } from "./deno_flags.ts";

/**
 * What {@link checkGrants} needs of a registry (a `ToolRegistry` is one): the
 * enabled tools, and a way to disable one. Structural, so this module stays
 * below `tool/`.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { checkGrants, type GrantTarget } from "./grants.ts";
 * const disabled: string[] = [];
 * const target: GrantTarget = {
 *   enabled: () => [{ name: "Bash", sideEffect: "Execute" }],
 *   disable: (name) => disabled.push(name),
 * };
 * checkGrants(target, { tools: target.enabled(), roots: ["/w"] }, { query: () => "denied" });
 * assert.deepEqual(disabled, ["Bash"]);
 * ```
 */
export interface GrantTarget {
  /** The enabled tools. */
  enabled(): readonly ToolNeeds[];
  /** Disables a tool, with the reason shown to the model and the user. */
  disable(name: string, reason: string): unknown;
}

/**
 * The check's outcome for one tool.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import type { ToolGrant } from "./grants.ts";
 * const bash: ToolGrant = { tool: "Bash", granted: false, missing: ["--allow-run=bash"] };
 * assert.equal(`${bash.tool}: run with ${bash.missing.join(" ")}`, "Bash: run with --allow-run=bash");
 * ```
 */
export interface ToolGrant {
  /** Tool name. */
  tool: string;
  /** Whether every permission it needs is granted. */
  granted: boolean;
  /** Flags that would grant what is missing. */
  missing: string[];
}

/**
 * The whole start-up report.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { checkGrants, type GrantReport } from "./grants.ts";
 * const tools = [{ name: "Read", sideEffect: "ReadOnly" as const }];
 * const target = { enabled: () => tools, disable: () => {} };
 * const report: GrantReport = checkGrants(target, { tools, roots: ["/w"] }, { query: () => "granted" });
 * assert.equal(report.tools[0].granted, true);
 * ```
 */
export interface GrantReport {
  /** Per enabled tool. */
  tools: ToolGrant[];
  /** Flags the runtime itself lacks (output folder, settings, env, model host): features degrade. */
  runtimeMissing: string[];
  /** Permissions held beyond the need, in words. */
  excess: string[];
  /** Programs the enabled tools need that were not found on PATH. */
  missingPrograms: string[];
  /** Programs whose presence could not be checked (no permission to look). */
  uncheckedPrograms: string[];
}

/**
 * Asks Deno about one permission; `granted` or not.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { checkGrants, type PermissionQuery } from "./grants.ts";
 * // pretend the process holds every permission but network
 * const query: PermissionQuery = (desc) => desc.name === "net" ? "denied" : "granted";
 * const tools = [{ name: "WebFetch", sideEffect: "Network" as const }];
 * const report = checkGrants({ enabled: () => tools, disable: () => {} }, {
 *   tools,
 *   roots: ["/w"],
 *   hosts: ["deno.com"],
 * }, { query });
 * assert.equal(report.tools[0].granted, false);
 * ```
 */
export type PermissionQuery = (desc: Deno.PermissionDescriptor) => Deno.PermissionState;

const realQuery: PermissionQuery = (desc) => Deno.permissions.querySync(desc).state;

/**
 * Options of {@link checkGrants}.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { checkGrants, type CheckOptions } from "./grants.ts";
 * const tools = [{ name: "Bash", sideEffect: "Execute" as const }];
 * const disabled: string[] = [];
 * const target = { enabled: () => tools, disable: (name: string) => disabled.push(name) };
 * const reportOnly: CheckOptions = { disable: false, query: () => "denied" };
 * assert.equal(checkGrants(target, { tools, roots: ["/w"] }, reportOnly).tools[0].granted, false);
 * assert.deepEqual(disabled, []);
 * ```
 */
export interface CheckOptions {
  /** Disable tools whose permissions are missing (default true). */
  disable?: boolean;
  /** Injected permission query (tests). Default: `Deno.permissions.querySync`. */
  query?: PermissionQuery;
  /** PATH to search for programs. Default: none (programs unchecked). */
  path?: string;
}

/**
 * Checks what the process holds against what each enabled tool needs.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { checkGrants } from "./grants.ts";
 * import { ToolRegistry } from "../tool/registry.ts";
 * const report = checkGrants(new ToolRegistry(), { tools: [], roots: ["/w"] });
 * assert.equal(report.tools.length, 0);
 * ```
 */
export function checkGrants(
  registry: GrantTarget,
  policy: FlagPolicy,
  options: CheckOptions = {},
): GrantReport {
  const query = options.query ?? realQuery;
  const tools: ToolGrant[] = [];
  for (const tool of registry.enabled()) {
    const need = neededPermissions({
      ...policy,
      tools: [{ name: tool.name, sideEffect: tool.sideEffect, programs: tool.programs }],
      outputDir: undefined,
      extraRead: undefined,
      modelHost: undefined,
      env: [],
    });
    const missing = missingFlags(need, query);
    tools.push({ tool: tool.name, granted: missing.length === 0, missing });
    if (missing.length && (options.disable ?? true)) {
      registry.disable(tool.name, `Deno has not granted what it needs: run with ${missing.join(" ")}`);
    }
  }
  // what the runtime itself needs: the output folder, its config files, env, the model host
  const own = neededPermissions({ ...policy, tools: [] });
  if (policy.outputDir) (own.read.push(policy.outputDir), own.write.push(policy.outputDir));
  const runtimeMissing = missingFlags(own, query);
  const all = neededPermissions(policy);
  const excess: string[] = [];
  const unscoped: Array<[Deno.PermissionName, string[] | undefined]> = [
    ["read", all.read],
    ["write", all.write],
    ["run", all.run],
    ["net", all.net],
    ["env", all.env],
    ["ffi", undefined],
    ["sys", undefined],
  ];
  for (const [name, needed] of unscoped) {
    const anyNeeded = needed && needed.length === 1 && needed[0] === "*";
    if (anyNeeded) continue;
    if (query({ name } as Deno.PermissionDescriptor) === "granted") {
      excess.push(
        needed && needed.length
          ? `holds --allow-${name} for everything, but needs only --allow-${name}=${needed.join(",")}`
          : `holds --allow-${name}, which no enabled tool needs`,
      );
    }
  }
  const programs = new Set<string>(all.run);
  const missingPrograms: string[] = [];
  const uncheckedPrograms: string[] = [];
  for (const p of programs) {
    const found = findProgram(p, options.path);
    if (found === undefined) uncheckedPrograms.push(p);
    else if (!found) missingPrograms.push(p);
  }
  return { tools, runtimeMissing, excess, missingPrograms, uncheckedPrograms };
}

function missingFlags(need: PermissionSet, query: PermissionQuery): string[] {
  const out: string[] = [];
  const check = (name: "read" | "write" | "run" | "net" | "env", values: string[], key: string) => {
    const lacking = values.filter((v) => {
      const desc = v === "*" ? { name } : { name, [key]: v };
      return query(desc as Deno.PermissionDescriptor) !== "granted";
    });
    if (lacking.length) {
      out.push(lacking[0] === "*" ? `--allow-${name}` : `--allow-${name}=${lacking.join(",")}`);
    }
  };
  check("read", need.read, "path");
  check("write", need.write, "path");
  check("run", need.run, "command");
  check("net", need.net, "host");
  check("env", need.env, "variable");
  return out;
}

/**
 * True when found, false when no directory we may look in has it, undefined
 * when no PATH directory could be looked in at all.
 */
function findProgram(program: string, path: string | undefined): boolean | undefined {
  const candidates = program.includes("/")
    ? [program]
    : (path ?? "").split(":").filter(Boolean).map((d) => join(d, program));
  let looked = false;
  for (const c of candidates) {
    try {
      if (Deno.statSync(c).isFile) return true;
      looked = true;
    } catch (err) {
      if (err instanceof Deno.errors.NotFound) looked = true;
    }
  }
  return looked ? false : undefined;
}

/**
 * Renders a report as lines for a person.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { formatGrantReport } from "./grants.ts";
 * const text = formatGrantReport({
 *   tools: [{ tool: "Read", granted: true, missing: [] }, {
 *     tool: "Bash",
 *     granted: false,
 *     missing: ["--allow-run=bash"],
 *   }],
 *   runtimeMissing: [],
 *   excess: [],
 *   missingPrograms: [],
 *   uncheckedPrograms: [],
 * });
 * assert.equal(text, "  ok       Read\n  missing  Bash: disabled; run with --allow-run=bash");
 * ```
 */
export function formatGrantReport(report: GrantReport): string {
  const lines: string[] = [];
  for (const t of report.tools) {
    lines.push(
      t.granted ? `  ok       ${t.tool}` : `  missing  ${t.tool}: disabled; run with ${t.missing.join(" ")}`,
    );
  }
  if (report.runtimeMissing.length) {
    lines.push(
      `  warning: the runtime lacks ${report.runtimeMissing.join(" ")} (spilled outputs, settings, env)`,
    );
  }
  for (const e of report.excess) lines.push(`  warning: the process ${e}`);
  for (const p of report.missingPrograms) lines.push(`  warning: program "${p}" is not on PATH`);
  for (const p of report.uncheckedPrograms) {
    lines.push(`  note: could not check for program "${p}" (no permission to look)`);
  }
  return lines.join("\n");
}

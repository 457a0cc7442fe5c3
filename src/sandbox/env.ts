/**
 * The environment every child Paddock starts gets (Bash, sandboxed or not;
 * command hooks; MCP stdio servers): an allowlist, so Paddock's own model and
 * search keys (and whatever else the parent process holds) never reach it
 * (THREATS.md P6). Each spawn site applies it itself, so no caller can forget.
 *
 * @module
 */

/** Variables a child inherits by name, besides the `LC_*` locale family. */
export const SANDBOX_ENV_NAMES: readonly string[] = [
  "PATH",
  "HOME",
  "LANG",
  "TERM",
  "TZ",
  "USER",
  "LOGNAME",
  "SHELL",
  "TMPDIR",
];

/**
 * Paddock's own model and search keys: never passed to a child, even when
 * the user names them in `passNames` (`--pass-env`). Besides these names,
 * every `SEARXNG*` variable and every `PADDOCK_*` variable whose name holds
 * `KEY`, `TOKEN`, `SECRET` or `PASSWORD` is held back ({@link isPaddockSecret}).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { PADDOCK_SECRET_NAMES } from "./env.ts";
 * assert.ok(PADDOCK_SECRET_NAMES.includes("OPENAI_API_KEY"));
 * ```
 */
export const PADDOCK_SECRET_NAMES: readonly string[] = [
  "OPENAI_API_KEY",
  "BRAVE_API_KEY",
  "BRAVE_SEARCH_API_KEY",
];

/**
 * Whether `name` is one of Paddock's own secrets (compared without case):
 * {@link PADDOCK_SECRET_NAMES}, `SEARXNG*`, or `PADDOCK_*` holding `KEY`,
 * `TOKEN`, `SECRET` or `PASSWORD`.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { isPaddockSecret } from "./env.ts";
 * assert.ok(isPaddockSecret("PADDOCK_SEARCH_API_KEY"));
 * assert.ok(isPaddockSecret("SEARXNG_URL"));
 * assert.ok(!isPaddockSecret("GITHUB_TOKEN"));
 * ```
 */
export function isPaddockSecret(name: string): boolean {
  const upper = name.toUpperCase();
  return PADDOCK_SECRET_NAMES.includes(upper) || upper.startsWith("SEARXNG") ||
    /^PADDOCK_.*(KEY|TOKEN|SECRET|PASSWORD)/.test(upper);
}

/**
 * The allowlisted part of `parentEnv`: {@link SANDBOX_ENV_NAMES}, every
 * `LC_*` variable, and the exact names in `passNames` (which the user chose),
 * never one of Paddock's own secrets ({@link isPaddockSecret}), whoever names it.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { sandboxEnv } from "./env.ts";
 * const parent = { PATH: "/bin", LC_ALL: "C", OPENAI_API_KEY: "sk-1", CI: "1" };
 * assert.deepEqual(sandboxEnv(parent, ["CI", "OPENAI_API_KEY"]), { PATH: "/bin", LC_ALL: "C", CI: "1" });
 * ```
 */
export function sandboxEnv(
  parentEnv: Readonly<Record<string, string>>,
  passNames: readonly string[] = [],
): Record<string, string> {
  const pass = new Set([...SANDBOX_ENV_NAMES, ...passNames]);
  const env: Record<string, string> = {};
  for (const [name, value] of Object.entries(parentEnv)) {
    if ((pass.has(name) || name.startsWith("LC_")) && !isPaddockSecret(name)) env[name] = value;
  }
  return env;
}

/**
 * This process's environment as far as Deno lets us read it: the whole of
 * it with `--allow-env`, else the allowlisted names and `names`, one by one
 * (each skipped when not granted). For children whose caller gave no
 * environment (command hooks, MCP servers); filter it with {@link sandboxEnv}.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { processEnv, sandboxEnv } from "./env.ts";
 * assert.equal(typeof sandboxEnv(processEnv()).PATH, "string");
 * ```
 */
export function processEnv(names: readonly string[] = []): Record<string, string> {
  try {
    return Deno.env.toObject();
  } catch {
    // only some names granted
  }
  const env: Record<string, string> = {};
  for (const name of [...SANDBOX_ENV_NAMES, "LC_ALL", "LC_CTYPE", "LC_MESSAGES", ...names]) {
    try {
      const value = Deno.env.get(name);
      if (value !== undefined) env[name] = value;
    } catch {
      // not granted
    }
  }
  return env;
}

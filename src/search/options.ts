/**
 * Options shared by Glob and Grep.
 *
 * @module
 */

/**
 * Which search engine Glob and Grep use.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { createGrepTool } from "../tools/grep/grep.ts";
 * import type { SearchEngine } from "./options.ts";
 * // never spawn ripgrep, for a process without --allow-run
 * const engine: SearchEngine = "in-process";
 * assert.deepEqual(createGrepTool({ engine }).programs ?? [], []);
 * ```
 */
export type SearchEngine = "auto" | "ripgrep" | "in-process";

/**
 * Options of the Glob and Grep tools (`builtinTools({ search })`).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { builtinTools } from "../tools/mod.ts";
 * import type { SearchToolOptions } from "./options.ts";
 * const search: SearchToolOptions = { respectGitignore: false, timeBudgetMs: 10_000, globLimit: 500 };
 * assert.ok(builtinTools({ search }).some((t) => t.name === "Grep"));
 * ```
 */
export interface SearchToolOptions {
  /** Apply `.gitignore` (and `.ignore`, `.rgignore`). Default true. */
  respectGitignore?: boolean;
  /**
   * The engine of Glob and Grep. `auto` (default) runs ripgrep when `--allow-run`
   * grants it and falls back in process otherwise (Glob: a plain walk,
   * `walk.ts`); `ripgrep` fails instead of falling back; `in-process` never spawns.
   */
  engine?: SearchEngine;
  /** The ripgrep binary. Default: `@vscode/ripgrep`'s, then `rg` on PATH. */
  rgPath?: string;
  /** Grep's time budget (ms): past it the search stops with a partial result. Default 30000. */
  timeBudgetMs?: number;
  /** Grep's match budget: lines of output (content mode) kept before stopping. Default 20000. */
  matchBudget?: number;
  /** Largest number of paths Glob returns. Default 100. */
  globLimit?: number;
}

/**
 * Default time budget of one Grep call (ms).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { DEFAULT_TIME_BUDGET_MS } from "./options.ts";
 * assert.equal(DEFAULT_TIME_BUDGET_MS, 30_000);
 * ```
 */
export const DEFAULT_TIME_BUDGET_MS = 30_000;
/**
 * Default match budget of one Grep call (output lines).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { DEFAULT_MATCH_BUDGET } from "./options.ts";
 * assert.equal(DEFAULT_MATCH_BUDGET, 20_000);
 * ```
 */
export const DEFAULT_MATCH_BUDGET = 20_000;

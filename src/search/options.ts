/**
 * Options shared by Glob and Grep, and the per-session file index they use.
 *
 * @module
 */
import type { Session } from "../session/session.ts";
import { FileIndex } from "./file_index.ts";

/** Which search engine Grep uses. */
export type SearchEngine = "auto" | "ripgrep" | "in-process";

/** Options of the Glob and Grep tools (`builtinTools({ search })`). */
export interface SearchToolOptions {
  /** Apply `.gitignore` (and `.ignore`, `.rgignore`). Default true. */
  respectGitignore?: boolean;
  /**
   * Grep's engine. `auto` (default) runs ripgrep when `--allow-run` grants it and
   * falls back in-process otherwise; `ripgrep` fails instead of falling back;
   * `in-process` never spawns.
   */
  engine?: SearchEngine;
  /** The ripgrep binary. Default: `@vscode/ripgrep`'s, then `rg` on PATH. */
  rgPath?: string;
  /** Grep's time budget (ms): past it the search stops with a partial result. Default 30000. */
  timeBudgetMs?: number;
  /** Grep's match budget: lines of output (content mode) kept before stopping. Default 20000. */
  matchBudget?: number;
  /**
   * Share Glob's cold walks with the process's walk helper thread when one
   * was started (`startWalkHelper`, done by `createRuntime`). Default true.
   */
  shareWalks?: boolean;
  /** Largest number of paths Glob returns. Default 100. */
  globLimit?: number;
}

/** Default time budget of one Grep call (ms). */
export const DEFAULT_TIME_BUDGET_MS = 30_000;
/** Default match budget of one Grep call (output lines). */
export const DEFAULT_MATCH_BUDGET = 20_000;

/** The session's warm file index (one per session). */
export function sessionIndex(session: Session): FileIndex {
  return session.slot("search.fileIndex", () => new FileIndex());
}

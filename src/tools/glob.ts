/**
 * Glob: files matching a pattern, newest first. Walks in process from the
 * pattern's literal prefix (`src/vs/**\/*.ts` starts at `src/vs`) over the
 * session's warm file index, so later calls on an unchanged tree cost one
 * stat per folder. A cold walk is shared with the walk helper thread when the
 * process started one (`walk_helper.ts`; `createRuntime` does with
 * `walkHelper: true`, as the CLI does).
 *
 * @module
 */
import { isAbsolute, join } from "node:path";
import { z } from "zod";
import { AbortedError, InvalidInputError } from "../errors.ts";
import { defineTool, type Tool } from "../registry/define_tool.ts";
import { type GlobMatcher, globMatcher, splitLiteralPrefix } from "./_shared/glob_match.ts";
import { type MtimeItem, MtimeLoader } from "./_shared/mtime_loader.ts";
import { resolveSafePath } from "./_shared/paths.ts";
import { type SearchToolOptions, sessionIndex } from "./_shared/search_options.ts";
import { sharedWalk } from "./_shared/walk_helper.ts";

/** Most paths one Glob call returns. */
export const GLOB_MAX_RESULTS = 100;

/** Structured result of a Glob call. */
export interface GlobResult {
  /** Absolute paths, newest modification first. */
  filenames: string[];
  /** Files that matched in total. */
  numFiles: number;
  /** Whether `filenames` was cut to the limit. */
  truncated: boolean;
  /** Wall time of the search (ms). */
  durationMs: number;
}

/** Input of Glob. */
export interface GlobInput {
  /** Glob to match, relative to `path` (or absolute). */
  pattern: string;
  /** Absolute folder to search in. Default: the session cwd. */
  path?: string;
}

const input: z.ZodType<GlobInput> = z.strictObject({
  pattern: z.string().min(1).describe(
    'Glob to match, relative to `path` (e.g. "**/*.ts", "src/**/*.{ts,tsx}")',
  ),
  path: z.string().optional().describe(
    "Absolute folder to search in. Default: the session's working directory",
  ),
});

/**
 * Creates the Glob tool.
 *
 * @example
 * ```ts
 * import { createGlobTool } from "./glob.ts";
 * console.assert(createGlobTool().name === "Glob");
 * ```
 */
export function createGlobTool(options: SearchToolOptions = {}): Tool<GlobInput, GlobResult> {
  const limit = options.globLimit ?? GLOB_MAX_RESULTS;
  return defineTool<GlobInput, GlobResult>({
    name: "Glob",
    description: "Finds files by name pattern (glob syntax: *, **, ?, [abc], {a,b}). " +
      `Returns absolute paths, most recently modified first, at most ${limit}. ` +
      "Hidden files are included; .git and .gitignored files are not.",
    sideEffect: "ReadOnly",
    input,
    summarize: (i) => i.path ? `${i.pattern} in ${i.path}` : i.pattern,
    async execute(i, ctx) {
      const started = performance.now();
      let pattern = i.pattern.replace(/^(\.\/)+/, "");
      let base = i.path ?? ctx.cwd;
      if (isAbsolute(pattern)) {
        if (i.path !== undefined) {
          throw new InvalidInputError(
            `"pattern" is absolute ("${i.pattern}") and "path" is set: give one or the other`,
          );
        }
        const { prefix, rest } = splitLiteralPrefix(pattern);
        base = prefix || "/";
        pattern = rest;
      }
      if (pattern === "") throw new InvalidInputError(`"pattern" names no files: "${i.pattern}"`);
      if (pattern.split("/").includes("..")) {
        throw new InvalidInputError(
          `"pattern" cannot climb with "..": "${i.pattern}": give the folder as an absolute "path"`,
        );
      }
      const root = resolveSafePath(base, ctx, { kind: "dir", param: "path" });
      let matcher: GlobMatcher;
      try {
        matcher = globMatcher(pattern);
      } catch (err) {
        throw new InvalidInputError(
          `"pattern" is not a valid glob: "${i.pattern}": ${(err as Error).message}`,
        );
      }
      const { prefix } = splitLiteralPrefix(pattern);
      const index = sessionIndex(ctx.session);
      const found: Array<Found> = [];
      const mtimes = new MtimeLoader();
      const done = await sharedWalk(index, root.real, {
        prefix,
        pattern,
        statKept: true,
        helper: options.shareWalks === false ? null : undefined,
        respectIgnore: options.respectGitignore ?? true,
        maxDepth: maxDepthOf(pattern),
        signal: ctx.signal,
        match: matcher,
        onFile(relDir, name, node, k, dir) {
          const item: Found = { dir, relDir, name, node, k, mtime: NaN };
          found.push(item);
          mtimes.add(item);
        },
      }).catch((err) => {
        mtimes.stop();
        throw err;
      });
      if (!done) {
        mtimes.stop();
        throw ctx.signal.reason ?? new AbortedError("Glob was aborted");
      }
      await mtimes.finish();
      const top = newest(found, limit);
      const shown = top.map((f) => join(root.requested, f.relDir, f.name));
      const truncated = found.length > limit;
      const durationMs = Math.round(performance.now() - started);
      const data: GlobResult = { filenames: shown, numFiles: found.length, truncated, durationMs };
      if (found.length === 0) return { text: "No files found", data };
      const note = truncated
        ? `\n(Showing the ${limit} most recently modified of ${found.length} files: narrow the pattern or path to see the rest)`
        : "";
      return { text: shown.join("\n") + note, data };
    },
  });
}

/** A match, with its mtime once loaded. */
type Found = MtimeItem & { relDir: string };

/** The `limit` newest entries, newest first (ties by path), without sorting all of them. */
function newest<T extends { relDir: string; name: string; mtime: number }>(all: T[], limit: number): T[] {
  let pool = all;
  if (all.length > limit * 4) {
    const times = Float64Array.from(all, (f) => f.mtime).sort();
    const cut = times[times.length - limit];
    pool = all.filter((f) => f.mtime >= cut);
  }
  // each path is built once: many files share an mtime (npm unpacks every file with one date)
  const keyed = pool.map((f) => ({ f, m: f.mtime, key: f.relDir ? `${f.relDir}/${f.name}` : f.name }));
  keyed.sort((a, b) => b.m - a.m || (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
  return keyed.slice(0, limit).map((k) => k.f);
}

/** How deep a pattern can reach (folders below the root), or Infinity for `**` and braces. */
function maxDepthOf(pattern: string): number {
  if (pattern.includes("**") || /\{[^}]*\/[^}]*\}/.test(pattern)) return Infinity;
  return pattern.split("/").length - 1;
}

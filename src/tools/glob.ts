/**
 * Glob: files matching a pattern, newest first. Walks in process from the
 * pattern's literal prefix (`src/vs/**\/*.ts` starts at `src/vs`) over the
 * session's warm file index, so later calls on an unchanged tree cost one
 * stat per folder.
 *
 * @module
 */
import { isAbsolute, join } from "node:path";
import { z } from "zod";
import { AbortedError, InvalidInputError } from "../errors.ts";
import { defineTool, type Tool } from "../registry/define_tool.ts";
import { globToRegExp, splitLiteralPrefix } from "./_shared/glob_match.ts";
import { resolveSafePath } from "./_shared/paths.ts";
import { type SearchToolOptions, sessionIndex } from "./_shared/search_options.ts";

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

const input = z.strictObject({
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
export function createGlobTool(options: SearchToolOptions = {}): Tool<z.infer<typeof input>, GlobResult> {
  const limit = options.globLimit ?? GLOB_MAX_RESULTS;
  return defineTool({
    name: "Glob",
    description: "Finds files by name pattern (glob syntax: *, **, ?, [abc], {a,b}). " +
      `Returns absolute paths, most recently modified first, at most ${limit}. ` +
      "Hidden files are included; .git and .gitignored files are not.",
    sideEffect: "ReadOnly",
    input,
    summarize: (i) => i.path ? `${i.pattern} in ${i.path}` : i.pattern,
    execute(i, ctx) {
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
      const root = resolveSafePath(base, ctx, { kind: "dir", param: "path" });
      let re: RegExp;
      try {
        re = globToRegExp(pattern);
      } catch (err) {
        throw new InvalidInputError(
          `"pattern" is not a valid glob: "${i.pattern}": ${(err as Error).message}`,
        );
      }
      const { prefix } = splitLiteralPrefix(pattern);
      const index = sessionIndex(ctx.session);
      const found: Array<{ rel: string; mtime: number }> = [];
      const done = index.walk(root.real, {
        prefix,
        respectIgnore: options.respectGitignore ?? true,
        maxDepth: maxDepthOf(pattern),
        signal: ctx.signal,
        onFile(rel, node, k, dir) {
          if (re.test(rel)) found.push({ rel, mtime: index.fileMtime(dir, node, k) });
        },
      });
      if (!done) throw ctx.signal.reason ?? new AbortedError("Glob was aborted");
      found.sort((a, b) => b.mtime - a.mtime || (a.rel < b.rel ? -1 : a.rel > b.rel ? 1 : 0));
      const shown = found.slice(0, limit).map((f) => join(root.requested, f.rel));
      const truncated = found.length > limit;
      const durationMs = Math.round(performance.now() - started);
      const data: GlobResult = { filenames: shown, numFiles: found.length, truncated, durationMs };
      if (found.length === 0) return Promise.resolve({ text: "No files found", data });
      const note = truncated
        ? `\n(Showing the ${limit} most recently modified of ${found.length} files: narrow the pattern or path to see the rest)`
        : "";
      return Promise.resolve({ text: shown.join("\n") + note, data });
    },
  });
}

/** How deep a pattern can reach (folders below the root), or Infinity for `**` and braces. */
function maxDepthOf(pattern: string): number {
  if (pattern.includes("**") || pattern.includes("{")) return Infinity;
  const segments = pattern.split("/");
  return segments.some((s, k) => k < segments.length - 1 && s === "") ? Infinity : segments.length - 1;
}

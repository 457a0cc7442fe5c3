/**
 * Glob: files matching a pattern, newest first. Walks in process from the
 * pattern's literal prefix (`src/vs/**\/*.ts` starts at `src/vs`) over the
 * session's warm file index, so later calls on an unchanged tree cost one
 * stat per folder. A call the index remembers (same folder, pattern and
 * options) only checks the folders its last walk read, and walks again when
 * one changed. When the process started the walk helper thread
 * (`walk_helper.ts`; `createRuntime` does with `walkHelper: true`, as the
 * CLI does), a cold walk is shared with it, and so are the stats of a warm
 * call.
 *
 * @module
 */
import { isAbsolute } from "node:path";
import { z } from "zod";
import { AbortedError, InvalidInputError } from "../errors.ts";
import { defineTool, type Tool } from "../tool/define_tool.ts";
import { type GlobMatcher, globMatcher, splitLiteralPrefix } from "../search/glob_match.ts";
import { type FileIndex, WalkTrail } from "../search/file_index.ts";
import { type MtimeItem, MtimeLoader } from "../search/mtime_loader.ts";
import { NewestPaths } from "../search/newest.ts";
import { resolveSafePath } from "../session/workspace.ts";
import { type SearchToolOptions, sessionIndex } from "../search/options.ts";
import { settleIndexAhead } from "../search/index_ahead.ts";
import { checkListings, sharedWalk, type SharedWalkOptions, shareMtimes } from "../search/walk_helper.ts";

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
      const respectIgnore = options.respectGitignore ?? true;
      // a walk made ahead that has not finished is dropped: this call walks as it would have without one
      await settleIndexAhead(ctx.session);
      const index = sessionIndex(ctx.session);
      // the folders the result depends on are in the index's memo; the key names the rest
      const key = `Glob\0${pattern}\0${respectIgnore}\0${limit}`;
      const share = options.shareWalks !== false;
      const recalled = index.recall<Listed>(key, root.real, share ? checkListings() : undefined);
      let listed: Listed;
      if (recalled.hit) listed = recalled.value;
      else {
        const trail = new WalkTrail();
        listed = await walk(index, root.real, {
          pattern,
          matcher,
          limit,
          helper: share ? undefined : null,
          respectIgnore,
          signal: ctx.signal,
          trail,
          fresh: recalled.fresh,
        });
        index.remember(key, root.real, trail, listed);
      }
      // `requested` is resolved (no "." or "..", no trailing "/" but at the root), so a plain join is enough
      const dir = root.requested.endsWith("/") ? root.requested : `${root.requested}/`;
      const shown = listed.top.map((rel) => dir + rel);
      const { total } = listed;
      const truncated = total > limit;
      const durationMs = Math.round(performance.now() - started);
      const data: GlobResult = { filenames: shown, numFiles: total, truncated, durationMs };
      if (total === 0) return { text: "No files found", data };
      const note = truncated
        ? `\n(Showing the ${limit} most recently modified of ${total} files: narrow the pattern or path to see the rest)`
        : "";
      return { text: shown.join("\n") + note, data };
    },
  });
}

/** A match, with its mtime once loaded. */
type Found = MtimeItem & { relDir: string };

/** What a walk found: the newest paths (relative to the root) and how many matched. */
interface Listed {
  top: string[];
  total: number;
}

/** Walks for the matches of `pattern` and lists the `limit` newest. */
async function walk(
  index: FileIndex,
  root: string,
  opts: Pick<SharedWalkOptions, "pattern" | "helper" | "respectIgnore" | "signal" | "trail" | "fresh"> & {
    matcher: GlobMatcher;
    limit: number;
  },
): Promise<Listed> {
  const { pattern, matcher, limit, ...rest } = opts;
  const top = new NewestPaths(limit);
  const unknown: Array<Found> = []; // matches whose mtime is not in the index yet
  // with the helper thread ready, the stats a warm walk leaves are shared with it (no thread to start)
  const share = opts.helper === null ? undefined : shareMtimes(opts.helper);
  const mtimes = new MtimeLoader({ share });
  const done = await sharedWalk(index, root, {
    ...rest,
    prefix: splitLiteralPrefix(pattern).prefix,
    pattern,
    statKept: true,
    maxDepth: maxDepthOf(pattern),
    match: matcher,
    onFile(relDir, name, node, k, dir) {
      const m = node.fileMtimes?.[k];
      if (m !== undefined && !Number.isNaN(m)) return void top.offer(m, relDir, name);
      const item: Found = { dir, relDir, name, node, k, mtime: NaN };
      unknown.push(item);
      mtimes.add(item);
    },
  }).catch((err) => {
    mtimes.stop();
    throw err;
  });
  if (!done) {
    mtimes.stop();
    throw opts.signal?.reason ?? new AbortedError("Glob was aborted");
  }
  await mtimes.finish();
  for (const f of unknown) top.offer(f.mtime, f.relDir, f.name);
  return { top: top.paths(), total: top.total };
}

/** How deep a pattern can reach (folders below the root), or Infinity for `**` and braces. */
function maxDepthOf(pattern: string): number {
  if (pattern.includes("**") || /\{[^}]*\/[^}]*\}/.test(pattern)) return Infinity;
  return pattern.split("/").length - 1;
}

/**
 * Glob: files matching a pattern, newest first. One loop over `rg --files`
 * (ripgrep's ignore handling, as Grep) started at the pattern's literal
 * prefix (`src/vs/**\/*.ts` starts at `src/vs`): each path is tested against
 * the pattern, each match statted, and the newest kept. Where rg may not run
 * (no `--allow-run` for it) or is missing, a plain walk (`search/walk.ts`)
 * with the same rules lists the files instead. Nothing is kept between calls.
 *
 * @module
 */
import { isAbsolute } from "node:path";
import { z } from "zod";
import { AbortedError, InvalidInputError, PermissionDeniedError, UnavailableError } from "../errors.ts";
import { defineTool, type Tool } from "../tool/define_tool.ts";
import { type GlobMatcher, globMatcher, splitLiteralPrefix } from "../search/glob_match.ts";
import { reallyInside, resolveSafePath } from "../session/workspace.ts";
import type { SearchEngine, SearchToolOptions } from "../search/options.ts";
import { locateRipgrep, mayRun, rgFilesArgs, streamLines } from "../search/ripgrep.ts";
import { globStart, walkFiles } from "../search/walk.ts";

/** Most paths one Glob call returns. */
export const GLOB_MAX_RESULTS = 100;

/**
 * Structured result of a Glob call.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { runTool, Session, ToolRegistry } from "../../mod.ts";
 * import { createGlobTool, type GlobResult } from "./glob.ts";
 * const dir = await Deno.realPath(await Deno.makeTempDir());
 * await Deno.writeTextFile(`${dir}/a.ts`, "");
 * await Deno.writeTextFile(`${dir}/b.md`, "");
 * await using session = new Session({ roots: [dir] });
 * const r = await runTool(new ToolRegistry([createGlobTool()]), {
 *   name: "Glob",
 *   input: { pattern: "*.ts" },
 * }, { session });
 * const data = r.data as GlobResult;
 * assert.deepEqual(data.filenames, [`${dir}/a.ts`]);
 * await Deno.remove(dir, { recursive: true });
 * ```
 */
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

/**
 * Input of Glob.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { createGlobTool, type GlobInput } from "./glob.ts";
 * const input: GlobInput = { pattern: "*.test.ts", path: "/w/src" };
 * assert.ok(createGlobTool().input.safeParse(input).success);
 * ```
 */
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
 * import assert from "node:assert/strict";
 * import { createGlobTool } from "./glob.ts";
 * assert.equal(createGlobTool().name, "Glob");
 * ```
 */
export function createGlobTool(options: SearchToolOptions = {}): Tool<GlobInput, GlobResult> {
  const limit = options.globLimit ?? GLOB_MAX_RESULTS;
  const rg = locateRipgrep(options.rgPath);
  return defineTool<GlobInput, GlobResult>({
    name: "Glob",
    description: "Finds files by name pattern (glob syntax: *, **, ?, [abc], {a,b}). " +
      `Returns absolute paths, most recently modified first, at most ${limit}. ` +
      "Hidden files are included; .git and .gitignored files are not.",
    sideEffect: "ReadOnly",
    programs: options.engine === "in-process" ? [] : [rg],
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
      const listed = await newestMatches(root.real, pattern, matcher, {
        engine: options.engine ?? "auto",
        rg,
        respectIgnore: options.respectGitignore ?? true,
        limit,
        signal: ctx.signal,
        roots: ctx.roots,
      });
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

/** How one Glob call lists files. */
interface ListOptions {
  engine: SearchEngine;
  rg: string;
  respectIgnore: boolean;
  limit: number;
  signal: AbortSignal;
  /** The workspace roots: a match whose real path leaves them (a folder swapped mid-walk) is dropped. */
  roots: readonly string[];
}

/** Lists the matches of `pattern` under `root` and keeps the `limit` newest. */
async function newestMatches(
  root: string,
  pattern: string,
  matcher: GlobMatcher,
  o: ListOptions,
): Promise<{ top: string[]; total: number }> {
  const top = new Newest(o.limit);
  // a folder named on rg's command line is listed even when ignored: globStart leaves those out
  const start = globStart(root, pattern, { respectIgnore: o.respectIgnore });
  if (!start) return top.result();
  const maxDepth = maxDepthOf(pattern);
  const keep = (rel: string) => {
    if (!reallyInside(`${root}/${rel}`, o.roots)) return;
    const mtime = mtimeOf(`${root}/${rel}`);
    if (mtime !== undefined) top.offer(mtime, rel);
  };
  if (await useRipgrep(o)) {
    const args = rgFilesArgs({
      paths: start.paths,
      maxDepth: maxDepth - start.depth,
      // every match's name matches the pattern's last segment; the matcher still decides
      nameGlob: pattern.slice(pattern.lastIndexOf("/") + 1),
      respectIgnore: o.respectIgnore,
    });
    let lines = 0;
    try {
      const r = await streamLines(o.rg, args, {
        cwd: root,
        signal: o.signal,
        delimiter: "\0",
        onLine(rel) {
          lines++;
          const slash = rel.lastIndexOf("/");
          if (matcher.test(slash === -1 ? "" : rel.slice(0, slash), rel.slice(slash + 1))) keep(rel);
        },
      });
      if (o.signal.aborted) throw o.signal.reason ?? new AbortedError("Glob was aborted");
      // exit code 2 with paths listed: some folder could not be read, as a walk would skip it
      if (r.code === 2 && lines === 0) {
        throw new UnavailableError(`ripgrep failed: ${r.stderr.trim().split("\n")[0] || "no message"}`);
      }
      return top.result();
    } catch (err) {
      if (!(err instanceof Deno.errors.NotFound) || o.engine === "ripgrep") throw err;
    }
  }
  const done = await walkFiles(root, {
    prefix: splitLiteralPrefix(pattern).prefix,
    maxDepth,
    respectIgnore: o.respectIgnore,
    signal: o.signal,
    onFile(relDir, name) {
      if (matcher.test(relDir, name)) keep(relDir ? `${relDir}/${name}` : name);
    },
  });
  if (!done) throw o.signal.reason ?? new AbortedError("Glob was aborted");
  return top.result();
}

/** Whether to list with rg: `engine` allows it and this process may run it. */
async function useRipgrep(o: ListOptions): Promise<boolean> {
  if (o.engine === "in-process") return false;
  if (await mayRun(o.rg)) return true;
  if (o.engine === "ripgrep") {
    throw new PermissionDeniedError(`Cannot run ripgrep "${o.rg}": --allow-run for it is not granted`);
  }
  return false;
}

/** The file's mtime (ms), 0 where the platform has none; undefined when it is gone. */
function mtimeOf(path: string): number | undefined {
  try {
    return Deno.lstatSync(path).mtime?.getTime() ?? 0;
  } catch {
    return undefined;
  }
}

/** How deep a pattern can reach (folders below the root), or Infinity for `**` and braces across folders. */
function maxDepthOf(pattern: string): number {
  if (pattern.includes("**") || /\{[^}]*\/[^}]*\}/.test(pattern)) return Infinity;
  return pattern.split("/").length - 1;
}

/**
 * The `limit` newest of the paths offered (ties: the path that sorts first),
 * and how many were offered. Offers are buffered and cut back to `limit`
 * when the buffer doubles, so each costs one comparison unless it may make
 * the cut.
 */
class Newest {
  #kept: Array<{ m: number; path: string }> = [];
  #floor = -Infinity; // mtime of the worst kept after a cut: anything older cannot make it
  #limit: number;
  #total = 0;

  constructor(limit: number) {
    this.#limit = Math.max(0, limit);
  }

  offer(mtime: number, path: string): void {
    this.#total++;
    if (mtime < this.#floor) return;
    this.#kept.push({ m: mtime, path });
    if (this.#kept.length >= 2 * this.#limit + 64) this.#cut();
  }

  result(): { top: string[]; total: number } {
    this.#cut();
    return { top: this.#kept.map((e) => e.path), total: this.#total };
  }

  #cut(): void {
    const kept = this.#kept;
    kept.sort((a, b) => b.m - a.m || (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
    if (kept.length < this.#limit) return;
    kept.length = this.#limit;
    this.#floor = this.#limit > 0 ? kept[this.#limit - 1].m : Infinity;
  }
}

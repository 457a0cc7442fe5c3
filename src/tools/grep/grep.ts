/**
 * Grep: ripgrep-syntax search with three output modes, paging and budgets.
 * rg runs from an argv array (never a shell), its output is streamed and cut
 * at the page or the budget; without `--allow-run` for rg the same search
 * runs in process and the result says so.
 *
 * @module
 */
import { join, relative, resolve } from "node:path";
import { z } from "zod";
import { InvalidInputError } from "../../errors.ts";
import { defineTool, type Tool } from "../../tool/define_tool.ts";
import { splitGlobList } from "../../search/glob_match.ts";
import { runGrep } from "./run.ts";
import { isInside, reallyInside, resolveSafePath } from "../../session/workspace.ts";
import { openFileInside } from "../../files/safe_fs.ts";
import { decodeText } from "../../files/text.ts";
import {
  type GrepMode,
  type GrepQuery,
  locateRipgrep,
  orderByKeys,
  pathSortKey,
  sortByPath,
} from "../../search/ripgrep.ts";
import {
  DEFAULT_MATCH_BUDGET,
  DEFAULT_TIME_BUDGET_MS,
  type SearchToolOptions,
} from "../../search/options.ts";

/** Entries returned when `head_limit` is not given. */
export const DEFAULT_HEAD_LIMIT = 250;

/**
 * Structured result of a Grep call.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { runTool, Session, ToolRegistry } from "../../../mod.ts";
 * import { createGrepTool, type GrepResult } from "./grep.ts";
 * const dir = await Deno.realPath(await Deno.makeTempDir());
 * await Deno.writeTextFile(`${dir}/a.ts`, "// TODO: one\n// TODO: two\n");
 * await using session = new Session({ roots: [dir] });
 * const grep = createGrepTool({ engine: "in-process" });
 * const r = await runTool(new ToolRegistry([grep]), {
 *   name: "Grep",
 *   input: { pattern: "TODO", output_mode: "count" },
 * }, { session });
 * const data = r.data as GrepResult;
 * assert.equal(data.mode, "count");
 * assert.equal(data.numMatches, 2);
 * await Deno.remove(dir, { recursive: true });
 * ```
 */
export interface GrepResult {
  /** The output mode that ran. */
  mode: GrepMode;
  /** The page of entries (paths, `path:count` or output lines). */
  entries: string[];
  /** Files with matches (files and count modes; content mode: files in the page). */
  numFiles: number;
  /** Total matching lines (count mode). */
  numMatches?: number;
  /** Entries skipped and the page size, when paging applied. */
  appliedOffset?: number;
  /** The head limit that cut the result, when it did. */
  appliedLimit?: number;
  /** Why the search stopped early, when it did. */
  partial?: "time_budget" | "match_budget";
  /** Which engine ran. */
  engine: "ripgrep" | "in-process";
  /** Wall time (ms). */
  durationMs: number;
}

/**
 * Input of Grep (wire names as in the contract).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { createGrepTool, type GrepInput } from "./grep.ts";
 * const input: GrepInput = {
 *   pattern: "fn\\s+main",
 *   glob: "*.rs",
 *   output_mode: "content",
 *   "-n": true,
 *   "-C": 2,
 * };
 * assert.ok(createGrepTool().input.safeParse(input).success);
 * ```
 */
export interface GrepInput {
  /** Regular expression (ripgrep syntax). */
  pattern: string;
  /** Absolute file or folder to search. Default: the session cwd. */
  path?: string;
  /** Globs to filter files, split on spaces or commas outside braces. */
  glob?: string;
  /** Output mode. Default `files_with_matches`. */
  output_mode?: GrepMode;
  /** Lines of context before each match. */
  "-B"?: number;
  /** Lines of context after each match. */
  "-A"?: number;
  /** Lines of context around each match (wins over -B and -A). */
  "-C"?: number;
  /** Same as -C, and wins over it. */
  context?: number;
  /** Line numbers in content mode. Default true. */
  "-n"?: boolean;
  /** Case-insensitive search. */
  "-i"?: boolean;
  /** ripgrep file type. */
  type?: string;
  /** Entries to return; 0 for all. Default 250. */
  head_limit?: number;
  /** Entries to skip first. Default 0. */
  offset?: number;
  /** Let matches span lines. Default false. */
  multiline?: boolean;
}

const count = (what: string) => z.number().int().min(0).optional().describe(what);
const input: z.ZodType<GrepInput> = z.strictObject({
  pattern: z.string().describe("Regular expression to search for (ripgrep syntax)"),
  path: z.string().optional().describe(
    "Absolute file or folder to search. Default: the session's working directory",
  ),
  glob: z.string().optional().describe(
    'Only files matching these globs (e.g. "*.ts", "*.{ts,tsx} !*.d.ts"), split on spaces or commas',
  ),
  output_mode: z.enum(["content", "files_with_matches", "count"]).optional()
    .describe(
      '"content": matching lines; "files_with_matches": paths, newest first (default); "count": matches per file',
    ),
  "-B": count("Lines of context before each match (content mode)"),
  "-A": count("Lines of context after each match (content mode)"),
  "-C": count("Lines of context around each match (content mode); overrides -B and -A"),
  context: count("Same as -C; wins over -C"),
  "-n": z.boolean().optional().describe("Show line numbers (content mode). Default true"),
  "-i": z.boolean().optional().describe("Case-insensitive search"),
  type: z.string().optional().describe('File type to search (ripgrep types: "js", "py", "rust", "ts"...)'),
  head_limit: count(`Return at most this many entries (default ${DEFAULT_HEAD_LIMIT}; 0 for all)`),
  offset: count("Skip this many entries first (default 0)"),
  multiline: z.boolean().optional().describe(
    "Let patterns span lines; . also matches newlines. Default false",
  ),
});
type Input = GrepInput;

/**
 * Creates the Grep tool.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { createGrepTool } from "./grep.ts";
 * const grep = createGrepTool();
 * assert.ok(grep.name === "Grep" && grep.programs!.length === 1);
 * ```
 */
export function createGrepTool(options: SearchToolOptions = {}): Tool<GrepInput, GrepResult> {
  const rg = locateRipgrep(options.rgPath);
  return defineTool<Input, GrepResult>({
    name: "Grep",
    description: "Searches file contents with a regular expression (ripgrep syntax). " +
      'output_mode "files_with_matches" (default) lists paths newest first, "content" shows matching lines, ' +
      '"count" counts per file. Filter with glob or type; page with head_limit and offset. ' +
      "Hidden files are searched; .git and .gitignored files are not.",
    sideEffect: "ReadOnly",
    programs: options.engine === "in-process" ? [] : [rg],
    input,
    summarize: (i) => i.path ? `${i.pattern} in ${i.path}` : i.pattern,
    async execute(i, ctx) {
      const started = performance.now();
      checkArguments(i);
      const safe = resolveSafePath(i.path ?? ctx.cwd, ctx, { kind: "any", param: "path" });
      const mode: GrepMode = i.output_mode ?? "files_with_matches";
      const ctxLines = i.context ?? i["-C"];
      const rel = relative(ctx.cwd, safe.requested);
      const q: GrepQuery = {
        pattern: i.pattern,
        mode,
        caseInsensitive: i["-i"] ?? false,
        lineNumbers: i["-n"] ?? true,
        before: ctxLines ?? i["-B"] ?? 0,
        after: ctxLines ?? i["-A"] ?? 0,
        globs: i.glob ? splitGlobList(i.glob) : [],
        type: i.type,
        multiline: i.multiline ?? false,
        respectIgnore: options.respectGitignore ?? true,
        cwd: ctx.cwd,
        target: rel === "" && !safe.info!.isFile ? undefined : rel || ".",
      };
      const offset = i.offset ?? 0;
      const limit = i.head_limit ?? DEFAULT_HEAD_LIMIT;
      const budget = options.matchBudget ?? DEFAULT_MATCH_BUDGET;
      // content streams in path order and stops at the page; the other modes sort everything they get
      const want = mode === "content"
        ? offset + (limit === 0 ? budget : Math.min(limit, budget)) + 1
        : Infinity;
      const lines: string[] = [];
      const mtimes: number[] = [];
      const keys: string[] = [];
      let seen = 0;
      const fromInside = insideFilter(mode, ctx.cwd, ctx.roots);
      const outcome = await runGrep(q, {
        engine: options.engine ?? "auto",
        rg,
        root: safe.real,
        info: safe.info!,
        budgetMs: options.timeBudgetMs ?? DEFAULT_TIME_BUDGET_MS,
        signal: ctx.signal,
        onLine(line) {
          if (!fromInside(line)) return seen < want;
          if (seen++ >= offset || mode !== "content") lines.push(line);
          // stat and build sort keys while rg is still searching, not after it
          if (mode === "files_with_matches") mtimes.push(mtimeOf(join(ctx.cwd, line)));
          else if (mode === "count") {
            keys.push(pathSortKey(line.slice(0, line.lastIndexOf(":")), keys.length));
          }
          return seen < want;
        },
      });
      // rg reads by path: a line whose text is not in the file as opened and checked now came from elsewhere
      let entries = mode === "content"
        ? await checkedContent(lines, ctx.cwd, ctx.roots, q.lineNumbers)
        : lines;
      let numMatches: number | undefined;
      if (mode === "files_with_matches") entries = newestFirst(lines, mtimes);
      if (mode === "count") {
        entries = orderByKeys(entries, keys);
        numMatches = 0;
        for (const line of entries) numMatches += Number(line.slice(line.lastIndexOf(":") + 1));
      }
      const page = limit === 0 ? budget : Math.min(limit, budget);
      let more: boolean;
      if (mode === "content") {
        more = entries.length > page;
        entries = entries.slice(0, page);
      } else {
        entries = entries.slice(offset);
        more = limit > 0 && entries.length > limit;
        if (more) entries = entries.slice(0, limit);
      }
      const total = mode === "content" ? offset + entries.length : lines.length;
      const partial = outcome.timedOut
        ? "time_budget"
        : mode === "content" && more && (limit === 0 || limit > budget)
        ? "match_budget"
        : undefined;
      const numFiles = mode === "content" ? countFiles(entries) : total;
      const data: GrepResult = {
        mode,
        entries,
        numFiles,
        numMatches,
        appliedOffset: offset > 0 ? offset : undefined,
        appliedLimit: more && !partial ? limit : undefined,
        partial,
        engine: outcome.engine,
        durationMs: Math.round(performance.now() - started),
      };
      return {
        text: render(
          data,
          total,
          offset,
          insideNotes(outcome.notes, ctx.cwd, ctx.roots),
          options.timeBudgetMs ?? DEFAULT_TIME_BUDGET_MS,
          budget,
        ),
        data,
      };
    },
  });
}

function render(
  d: GrepResult,
  total: number,
  offset: number,
  extra: string[],
  budgetMs: number,
  budget: number,
): string {
  const notes = [...extra];
  const end = offset + d.entries.length;
  if (d.appliedLimit !== undefined) {
    const of = d.mode === "content" ? "" : ` of ${total}`;
    notes.push(`Showing entries ${offset + 1}-${end}${of}: use offset=${end} for more`);
  } else if (offset > 0) notes.push(`Skipped the first ${offset} entries (offset=${offset})`);
  if (d.partial === "time_budget") {
    notes.push(
      `The search stopped at its time budget (${budgetMs} ms): results are partial, narrow path or glob`,
    );
  }
  if (d.partial === "match_budget") {
    notes.push(
      `The search stopped at ${budget} lines: results are partial, narrow the pattern or page with head_limit`,
    );
  }
  const tail = notes.length ? `\n\n(${notes.join(". ")})` : "";
  if (d.entries.length === 0) {
    return (d.mode === "content" ? "No matches found" : "No files found") + tail;
  }
  if (d.mode === "files_with_matches") {
    return `Found ${total} file${total === 1 ? "" : "s"}\n${d.entries.join("\n")}${tail}`;
  }
  if (d.mode === "count") {
    return `${d.entries.join("\n")}\n\nFound ${d.numMatches} total occurrences across ${total} files${tail}`;
  }
  return d.entries.join("\n") + tail;
}

/** Newest first, ties in path order (many files share an mtime: npm unpacks every file with one date). */
function newestFirst(paths: string[], mtimes: number[]): string[] {
  const byPath = sortByPath(paths.map((p, i) => ({ p, m: mtimes[i] })), (x) => x.p);
  byPath.sort((a, b) => b.m - a.m); // stable: ties keep the path order
  return byPath.map((x) => x.p);
}

function mtimeOf(path: string): number {
  try {
    return Deno.statSync(path).mtime?.getTime() ?? 0;
  } catch {
    return 0; // vanished since: sorts last
  }
}

/** Files in content-mode lines, which come grouped by file: the regex runs only where the file changes. */
function countFiles(lines: readonly string[]): number {
  const files = new Set<string>();
  let file: string | undefined;
  for (const line of lines) {
    if (line === "--") continue;
    if (
      file !== undefined && line.startsWith(file) &&
      (line.charCodeAt(file.length) === 58 || line.charCodeAt(file.length) === 45)
    ) continue;
    file = fileOfLine(line);
    files.add(file);
  }
  return files.size;
}

function fileOfLine(line: string): string {
  const m = /^(.*?)[:-]\d+[:-]/.exec(line);
  return m ? m[1] : line.split(":")[0];
}

/**
 * A filter for the lines the engine reports: a line whose file's real path is
 * not inside `roots` now (a folder swapped for a symbolic link mid-search) is
 * dropped. Content lines name their file before `:` or `-` and a line number,
 * which a file name may also hold: the first such prefix that names an
 * existing file is the file; lines come grouped by file, so it is found once.
 */
function insideFilter(mode: GrepMode, cwd: string, roots: readonly string[]): (line: string) => boolean {
  let file: string | undefined, ok = false;
  const judge = (f: string) => {
    if (f !== file) {
      file = f;
      ok = reallyInside(resolve(cwd, f), roots);
    }
    return ok;
  };
  return (line) => {
    if (mode === "files_with_matches") return judge(line);
    if (mode === "count") return judge(line.slice(0, line.lastIndexOf(":")));
    if (line === "--") return true;
    const sep = file === undefined ? -1 : line.charCodeAt(file.length);
    if (file !== undefined && line.startsWith(file) && (sep === 58 || sep === 45)) return ok;
    for (const m of line.matchAll(/[:-]/g)) {
      if (m.index === 0) continue;
      const f = line.slice(0, m.index);
      try {
        if (Deno.lstatSync(resolve(cwd, f)).isFile) return judge(f);
      } catch {
        // not this prefix
      }
    }
    file = undefined;
    return false;
  };
}

/** Longest pattern or glob list, in UTF-8 bytes: each goes to rg as one argument, which Linux caps at 128 KiB. */
export const MAX_ARGUMENT_BYTES: number = 100_000;

/** Refuses values rg could not be given: a NUL byte, or an argument past the OS limit. */
function checkArguments(i: GrepInput): void {
  for (const [name, value] of [["pattern", i.pattern], ["glob", i.glob], ["type", i.type]] as const) {
    if (value === undefined) continue;
    if (value.includes("\0")) throw new InvalidInputError(`"${name}" contains a NUL byte`);
    const bytes = new TextEncoder().encode(value).length;
    if (bytes > MAX_ARGUMENT_BYTES) {
      throw new InvalidInputError(
        `"${name}" is ${bytes} bytes: the limit is ${MAX_ARGUMENT_BYTES}; search for a shorter, distinctive part`,
      );
    }
  }
}

/** rg's complaints name files ("<path>: No such file…"); one about a file not really inside the roots (a folder swapped mid-search) is left out. */
function insideNotes(notes: readonly string[], cwd: string, roots: readonly string[]): string[] {
  const lead = "ripgrep reported: ";
  return notes.flatMap((note) => {
    if (!note.startsWith(lead)) return [note];
    const kept = note.slice(lead.length).split("; ").filter((part) => {
      const colon = part.indexOf(": ");
      return colon === -1 || reallyInside(resolve(cwd, part.slice(0, colon)), roots);
    });
    return kept.length ? [lead + kept.join("; ")] : [];
  });
}

/**
 * Keeps the content lines whose text is the text of that line of the file as
 * opened and checked now (`files/safe_fs.ts`): a folder swapped for a symbolic
 * link while rg read by path cannot bring outside text in under an inside
 * name. Long lines rg cut are compared on their first characters.
 */
async function checkedContent(
  lines: readonly string[],
  cwd: string,
  roots: readonly string[],
  numbered: boolean,
): Promise<string[]> {
  const texts = new Map<string, string[] | null>();
  const textOf = async (file: string) => {
    if (!texts.has(file)) {
      try {
        const real = Deno.realPathSync(resolve(cwd, file));
        if (!isInside(real, roots)) throw new Error("outside");
        using f = openFileInside(real);
        const bytes = await f.readAll();
        texts.set(file, decodeText(bytes).text.split("\n").map((l) => l.replace(/\r$/, "")));
      } catch {
        texts.set(file, null);
      }
    }
    return texts.get(file)!;
  };
  const same = (line: string | undefined, shown: string) => {
    if (line === undefined) return false;
    const s = shown.replace(/\r$/, "");
    return line === s || (s.length >= 200 && line.startsWith(s.slice(0, 200)));
  };
  const out: string[] = [];
  let file: string | undefined;
  for (const line of lines) {
    if (line === "--") {
      out.push(line);
      continue;
    }
    const sep = file === undefined ? -1 : line.charCodeAt(file.length);
    if (file === undefined || !line.startsWith(file) || (sep !== 58 && sep !== 45)) {
      file = undefined;
      for (const m of line.matchAll(/[:-]/g)) {
        if (m.index === 0) continue;
        try {
          if (Deno.lstatSync(resolve(cwd, line.slice(0, m.index))).isFile) {
            file = line.slice(0, m.index);
            break;
          }
        } catch {
          // not this prefix
        }
      }
      if (file === undefined) continue;
    }
    const text = await textOf(file);
    if (!text) continue;
    const rest = line.slice(file.length + 1);
    const n = numbered ? /^(\d+)[:-]/.exec(rest) : null;
    if (n ? same(text[Number(n[1]) - 1], rest.slice(n[0].length)) : text.some((l) => same(l, rest))) {
      out.push(line);
    }
  }
  return out;
}

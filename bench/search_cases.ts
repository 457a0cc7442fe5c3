/**
 * The Grep and Glob benchmark cases, shared by `grep_bench.ts`,
 * `glob_bench.ts` and `search_medians.ts`.
 *
 * @module
 */
import { relative } from "node:path";
import { splitGlobList, splitLiteralPrefix } from "../src/search/glob_match.ts";
import type { GrepMode, GrepQuery } from "../src/search/ripgrep.ts";
import { type CorpusOptions, GEN_FILES } from "./corpus.ts";

/** One Grep case: a group name and the tool input. */
export interface GrepCase {
  /** Bench group. */
  group: string;
  /** Grep input (the benches add `head_limit: 0`). */
  input: Record<string, unknown>;
  /** Also time the in-process engine. */
  inProcess?: boolean;
}

/** Grep cases, run from the corpus repository's root (its node_modules is ignored). */
export const GREP_CASES: readonly GrepCase[] = [
  { group: "literal", input: { pattern: "createElement", output_mode: "content" }, inProcess: true },
  {
    group: "regex",
    input: { pattern: "function\\s+[a-z]+Observable", output_mode: "content" },
    inProcess: true,
  },
  { group: "case-insensitive", input: { pattern: "xmlhttprequest", "-i": true, output_mode: "content" } },
  { group: "files_with_matches", input: { pattern: "Observable" }, inProcess: true },
  { group: "count", input: { pattern: "import", output_mode: "count" }, inProcess: true },
  { group: "content+context", input: { pattern: "TODO", "-C": 2, output_mode: "content" } },
  { group: "glob-filtered", input: { pattern: "export default", glob: "*.ts,*.tsx" } },
  {
    group: "multiline",
    input: {
      pattern: "interface\\s+\\w+\\s*\\{\\s*\\n\\s*readonly",
      multiline: true,
      output_mode: "content",
    },
  },
];

/** The query the Grep tool builds for an input (its defaults), for the raw rg baseline. */
export function grepQueryOf(input: Record<string, unknown>, root: string): GrepQuery {
  const c = (input.context ?? input["-C"]) as number | undefined;
  return {
    pattern: String(input.pattern),
    mode: (input.output_mode ?? "files_with_matches") as GrepMode,
    caseInsensitive: Boolean(input["-i"]),
    lineNumbers: true,
    before: c ?? 0,
    after: c ?? 0,
    globs: input.glob ? splitGlobList(String(input.glob)) : [],
    multiline: Boolean(input.multiline),
    respectIgnore: true,
    cwd: root,
    target: input.path ? relative(root, String(input.path)) : undefined,
  };
}

/** One Glob case. */
export interface GlobCase {
  /** Bench group. */
  group: string;
  /** `repo` (the npm corpus) or `gen` (the generated tree). */
  root: "repo" | "gen";
  /** The Glob pattern. */
  pattern: string;
}

/** Glob cases. */
export const GLOB_CASES: readonly GlobCase[] = [
  { group: "**/*.ts", root: "repo", pattern: "**/*.ts" },
  { group: "deep narrow", root: "repo", pattern: "src/rxjs/src/internal/operators/**/*.ts" },
  { group: "**/package.json", root: "repo", pattern: "**/package.json" },
  { group: "gen **/*.ts", root: "gen", pattern: "**/*.ts" },
  { group: "gen pkg1*/**/*.json", root: "gen", pattern: "pkg1*/**/*.json" },
];

/**
 * The corpus the Glob benches use, from the environment: `PADDOCK_BENCH_GEN_FILES`
 * sizes the generated tree (default `GEN_FILES`, 200,000), and
 * `PADDOCK_BENCH_REPO=0` leaves out the npm corpus (built over the network)
 * and its cases.
 */
export function globBenchCorpus(): { options: CorpusOptions; cases: readonly GlobCase[] } {
  const genFiles = Number(Deno.env.get("PADDOCK_BENCH_GEN_FILES") ?? GEN_FILES);
  const repo = Deno.env.get("PADDOCK_BENCH_REPO") !== "0";
  return { options: { repo, genFiles }, cases: GLOB_CASES.filter((c) => repo || c.root === "gen") };
}

/**
 * Glob's plain baseline: `rg --files` from the pattern's literal prefix with
 * the rest of the pattern as rg's glob, then an `lstat` per path for its
 * mtime, in this process, keeping only the newest. Returns how many paths
 * rg listed and the newest mtime.
 */
export async function rgFilesAndStat(
  rg: string,
  root: string,
  pattern: string,
): Promise<{ files: number; newest: number }> {
  const { prefix, rest } = splitLiteralPrefix(pattern);
  const args = ["--files", "--hidden", "--no-config", "--null", "-g", "!.git", "-g", `/${rest}`];
  const out = await new Deno.Command(rg, {
    args: prefix ? [...args, "--", prefix] : args,
    cwd: root,
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).output();
  if (out.code === 2) throw new Error(`rg: ${new TextDecoder().decode(out.stderr)}`);
  const paths = new TextDecoder().decode(out.stdout).split("\0");
  paths.pop();
  let newest = 0;
  for (const p of paths) newest = Math.max(newest, Deno.lstatSync(`${root}/${p}`).mtime?.getTime() ?? 0);
  return { files: paths.length, newest };
}

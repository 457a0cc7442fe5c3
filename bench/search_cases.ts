/**
 * The Grep and Glob benchmark cases, shared by `grep_bench.ts`,
 * `glob_bench.ts` and `search_medians.ts`.
 *
 * @module
 */
import { relative } from "node:path";
import { splitGlobList } from "../src/search/glob_match.ts";
import type { GrepMode, GrepQuery } from "../src/search/ripgrep.ts";

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
  /** fd arguments for the same files (its globs match names). */
  fd: string[];
  /** find's `-name` test. */
  findName: string;
}

/** Glob cases. */
export const GLOB_CASES: readonly GlobCase[] = [
  { group: "**/*.ts", root: "repo", pattern: "**/*.ts", fd: ["--extension", "ts"], findName: "*.ts" },
  {
    group: "deep narrow",
    root: "repo",
    pattern: "src/rxjs/src/internal/operators/**/*.ts",
    fd: ["--extension", "ts"],
    findName: "*.ts",
  },
  {
    group: "**/package.json",
    root: "repo",
    pattern: "**/package.json",
    fd: ["--glob", "package.json"],
    findName: "package.json",
  },
  { group: "200k **/*.ts", root: "gen", pattern: "**/*.ts", fd: ["--extension", "ts"], findName: "*.ts" },
];

/**
 * A pattern that finds the same files as `pattern` but that a session has not
 * seen (`n` makes it new): its last segment gains a brace alternative that
 * names nothing. It measures a warm index answering a new question.
 */
export function unseenVariant(pattern: string, n: number): string {
  const cut = pattern.lastIndexOf("/") + 1;
  return `${pattern.slice(0, cut)}{${pattern.slice(cut)},paddock-unseen-${n}}`;
}

/** `find` arguments for a Glob case from `start`, pruning `node_modules` and `.git`; `print` is the action. */
export function findArgs(start: string, c: GlobCase, print: string[] = ["-print"]): string[] {
  return [start, "(", "-name", "node_modules", "-o", "-name", ".git", ")", "-prune", "-o", "-type", "f"]
    .concat(["-name", c.findName, ...print]);
}

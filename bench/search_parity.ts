/**
 * Output parity on the corpus (issue 5's proof): for every Grep case and
 * mode, the tool's entries equal raw rg's (flags spelled out by hand, not
 * taken from the tool), with the ripgrep engine and, where the case allows,
 * the in-process one; content pages of 500 are disjoint and consecutive; and
 * Glob lists what `rg --files` lists. Prints one line per check and exits
 * non-zero on any difference.
 *
 * `deno run -A bench/search_parity.ts` (build the corpus first with `deno run -A bench/corpus.ts`)
 */
import { ToolRegistry } from "../src/tool/registry.ts";
import { runTool } from "../src/tool/run_tool.ts";
import { Session } from "../src/session/session.ts";
import { locateRipgrep } from "../src/search/ripgrep.ts";
import { createGlobTool, type GlobResult } from "../src/tools/glob.ts";
import { createGrepTool, type GrepResult } from "../src/tools/grep/grep.ts";
import { ensureCorpus } from "./corpus.ts";
import { GLOB_CASES, GREP_CASES } from "./search_cases.ts";

const corpus = await ensureCorpus();
const RG = locateRipgrep();
const root = corpus.repo;
const budgets = { matchBudget: 100_000_000, timeBudgetMs: 600_000 };
const engines = {
  ripgrep: new ToolRegistry([createGrepTool({ ...budgets, engine: "ripgrep" })]),
  "in-process": new ToolRegistry([createGrepTool({ ...budgets, engine: "in-process" })]),
};
let failures = 0;

async function rawRg(cwd: string, args: string[]): Promise<string[]> {
  const out = await new Deno.Command(RG, { args, cwd, stdin: "null", stdout: "piped", stderr: "piped" })
    .output();
  if (out.code === 2) throw new Error(new TextDecoder().decode(out.stderr));
  const text = new TextDecoder().decode(out.stdout);
  return text === "" ? [] : text.replace(/\n$/, "").split("\n");
}

/** rg flags for a Grep input, written from the contract rather than from the tool's code. */
function rgFlags(q: Record<string, unknown>, mode: string): string[] {
  const a = ["--no-config", "--hidden", "-g", "!.git", "--color", "never", "--no-heading", "-H"];
  if (mode === "content") {
    a.push("-n", "--sort", "path", "--max-columns", "500", "--max-columns-preview");
    const c = q.context ?? q["-C"];
    if (c !== undefined) a.push("-C", String(c));
  } else a.push(mode === "count" ? "-c" : "-l");
  if (q["-i"]) a.push("-i");
  if (q.multiline) a.push("-U", "--multiline-dotall");
  for (const g of String(q.glob ?? "").split(",").filter(Boolean)) a.push("-g", g);
  return [...a, "-e", String(q.pattern)];
}

async function grep(
  reg: ToolRegistry,
  session: Session,
  input: Record<string, unknown>,
): Promise<GrepResult> {
  const r = await runTool(reg, { name: "Grep", input }, { session });
  if (!r.ok) throw new Error(r.text);
  return r.data as GrepResult;
}

function check(label: string, mine: string[], theirs: string[]): void {
  const same = mine.length === theirs.length && mine.every((x, i) => x === theirs[i]);
  if (!same) failures++;
  const at = mine.findIndex((x, i) => x !== theirs[i]);
  console.log(
    `${same ? "same" : "DIFF"}  ${label}: ${mine.length} vs rg ${theirs.length}${
      same ? "" : ` (first difference at ${at}: ${JSON.stringify(mine[at])} vs ${JSON.stringify(theirs[at])})`
    }`,
  );
}

const session = new Session({ roots: [root] });
for (const c of GREP_CASES) {
  for (const mode of ["content", "files_with_matches", "count"]) {
    const expected = await rawRg(root, rgFlags(c.input, mode));
    for (const [engine, reg] of Object.entries(engines)) {
      if (engine === "in-process" && !c.inProcess) continue;
      const d = await grep(reg, session, { ...c.input, output_mode: mode, head_limit: 0 });
      const label = `${c.group} ${mode} ${engine}`;
      if (mode === "content") check(label, d.entries, expected);
      else check(label, [...d.entries].sort(), [...expected].sort());
    }
  }
}

// paging: content pages of 500 are disjoint, consecutive and add up to the whole
{
  const input = { pattern: "createElement", output_mode: "content" };
  const all = await rawRg(root, rgFlags(input, "content"));
  const pages: string[] = [];
  for (let offset = 0;; offset += 500) {
    const d = await grep(engines.ripgrep, session, { ...input, head_limit: 500, offset });
    pages.push(...d.entries);
    if (d.appliedLimit === undefined) break;
  }
  check("content pages of 500", pages, all);
}

// Glob, over rg --files and by its fallback walk: every file rg --files lists for the same glob
// (rg's -g overrides ignores, so intersect)
const globTools = {
  ripgrep: new ToolRegistry([createGlobTool({ globLimit: 10_000_000, engine: "ripgrep" })]),
  walk: new ToolRegistry([createGlobTool({ globLimit: 10_000_000, engine: "in-process" })]),
};
for (const c of GLOB_CASES) {
  const dir = c.root === "gen" ? corpus.gen : corpus.repo;
  const listed = new Set(await rawRg(dir, ["--files", "--hidden", "--no-config", "-g", "!.git"]));
  const matching = await rawRg(dir, [
    "--files",
    "--hidden",
    "--no-config",
    "--no-ignore",
    "-g",
    "!.git",
    "-g",
    `/${c.pattern}`,
  ]);
  for (const [engine, tool] of Object.entries(globTools)) {
    const r = await runTool(tool, { name: "Glob", input: { pattern: c.pattern, path: dir } }, {
      session: new Session({ roots: [dir] }),
    });
    if (!r.ok) throw new Error(r.text);
    const mine = (r.data as GlobResult).filenames.map((f) => f.slice(dir.length + 1)).sort();
    check(`Glob ${c.group} (${engine})`, mine, matching.filter((f) => listed.has(f)).sort());
  }
}

console.log(failures === 0 ? "parity: all equal" : `parity: ${failures} difference(s)`);
if (failures > 0) Deno.exit(1);

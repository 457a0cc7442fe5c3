/**
 * The numbers for the report: the Glob and Grep benchmark cases run
 * interleaved (baseline, tool, baseline, tool…) so machine noise hits both
 * sides alike, and printed as a Markdown table of medians and median ratios.
 *
 * `deno run -A bench/search_medians.ts [rounds=9] [grep|glob]`; for the Glob
 * part, `PADDOCK_BENCH_GEN_FILES` and `PADDOCK_BENCH_REPO=0` choose the trees
 * (see `globBenchCorpus` in `search_cases.ts`).
 *
 * @module
 */
import { ToolRegistry } from "../src/tool/registry.ts";
import { runTool } from "../src/tool/run_tool.ts";
import { Session } from "../src/session/session.ts";
import { locateRipgrep, rgArgs } from "../src/search/ripgrep.ts";
import { createGlobTool } from "../src/tools/glob.ts";
import { createGrepTool } from "../src/tools/grep/grep.ts";
import { ensureCorpus } from "./corpus.ts";
import { globBenchCorpus, GREP_CASES, grepQueryOf, rgFilesAndStat } from "./search_cases.ts";

const rounds = Number(Deno.args[0] ?? 9);
const only = Deno.args[1];
const globCorpus = globBenchCorpus();
const corpus = await ensureCorpus({
  ...globCorpus.options,
  repo: only === "glob" ? globCorpus.options.repo : true,
  gen: only !== "grep",
});
const RG = locateRipgrep();

/** A measured function; one that resolves to `{ ownMs }` reports its own time. */
type Fn = () => Promise<unknown>;
const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};

/** Runs the named functions in turn (rotating the order), `rounds` times, after one warm-up each; returns median ms per name. */
async function interleave(fns: Record<string, Fn>): Promise<Record<string, number>> {
  const times: Record<string, number[]> = {};
  for (const [name, fn] of Object.entries(fns)) {
    await fn();
    times[name] = [];
  }
  const entries = Object.entries(fns);
  for (let r = 0; r < rounds; r++) {
    // a different order each round: what runs right after a spawn pays for it, so all take turns
    const order = entries.map((_, k) => entries[(k + r) % entries.length]);
    for (const [name, fn] of order) {
      const t = performance.now();
      const own = await fn();
      const ownMs = (own as { ownMs?: number } | undefined)?.ownMs;
      times[name].push(ownMs ?? performance.now() - t);
    }
  }
  return Object.fromEntries(Object.entries(times).map(([k, v]) => [k, median(v)]));
}

async function spawn(cmd: string, args: string[], cwd: string): Promise<void> {
  const out = await new Deno.Command(cmd, { args, cwd, stdin: "null", stdout: "piped", stderr: "piped" })
    .output();
  if (out.code === 2 || (!out.success && cmd !== RG)) {
    throw new Error(`${cmd}: ${new TextDecoder().decode(out.stderr)}`);
  }
}

async function call(
  reg: ToolRegistry,
  name: string,
  input: Record<string, unknown>,
  session: Session,
): Promise<void> {
  const r = await runTool(reg, { name, input }, { session });
  if (!r.ok) throw new Error(r.text);
}

const fmt = (ms: number) => ms >= 100 ? ms.toFixed(0) : ms >= 10 ? ms.toFixed(1) : ms.toFixed(2);
console.log(
  `${navigator.hardwareConcurrency} cores, load ${
    Deno.loadavg().map((x) => x.toFixed(1)).join(" ")
  }, ${rounds} rounds, medians in ms`,
);

if (only !== "glob") {
  const root = corpus.repo;
  const session = new Session({ roots: [root] });
  const budgets = { matchBudget: 10_000_000, timeBudgetMs: 600_000 };
  const rgTool = new ToolRegistry([createGrepTool({ ...budgets, engine: "ripgrep" })]);
  const jsTool = new ToolRegistry([createGrepTool({ ...budgets, engine: "in-process" })]);
  console.log(
    "\n| Grep group | raw rg | Grep tool | tool / rg | in-process | in-process / rg |\n|---|---|---|---|---|---|",
  );
  for (const c of GREP_CASES) {
    const args = rgArgs(grepQueryOf(c.input, root));
    const input = { head_limit: 0, ...c.input };
    const fns: Record<string, Fn> = {
      rg: () => spawn(RG, args, root),
      tool: () => call(rgTool, "Grep", input, session),
    };
    if (c.inProcess) fns.js = () => call(jsTool, "Grep", input, session);
    const m = await interleave(fns);
    const js = m.js === undefined ? "–" : fmt(m.js);
    const jsRatio = m.js === undefined ? "–" : `${(m.js / m.rg).toFixed(2)}×`;
    console.log(
      `| ${c.group} | ${fmt(m.rg)} | ${fmt(m.tool)} | ${(m.tool / m.rg).toFixed(2)}× | ${js} | ${jsRatio} |`,
    );
  }
  // what --sort path (deterministic pages) costs: raw rg with and without it, content mode
  {
    const args = rgArgs(grepQueryOf(GREP_CASES[0].input, root));
    const unsorted = args.filter((a, k) => a !== "--sort" && args[k - 1] !== "--sort");
    const m = await interleave({
      rg: () => spawn(RG, args, root),
      unsorted: () => spawn(RG, unsorted, root),
    });
    console.log(
      `| (literal: raw rg without --sort path, parallel) | ${fmt(m.rg)} | ${fmt(m.unsorted)} | ${
        (m.unsorted / m.rg).toFixed(2)
      }× | – | – |`,
    );
  }
  // small scopes: one file of 64 KB or 1 MB (auto picks in-process up to 512 KB)
  const small = await Deno.makeTempDir({ prefix: "paddock-grep-bench-" });
  const smallSession = new Session({ roots: [small] });
  const autoTool = new ToolRegistry([createGrepTool()]);
  for (const kb of [64, 1024]) {
    const file = `${small}/f${kb}.ts`;
    const line = "const value = compute(input, options); // an ordinary line\n";
    await Deno.writeTextFile(file, line.repeat(Math.ceil((kb * 1024) / line.length)));
    const input = { pattern: "options", path: file, output_mode: "content", head_limit: 0 };
    const args = rgArgs({ ...grepQueryOf(input, small), target: `f${kb}.ts` });
    const m = await interleave({
      rg: () => spawn(RG, args, small),
      tool: () => call(autoTool, "Grep", input, smallSession),
      js: () => call(jsTool, "Grep", input, smallSession),
    });
    const row = [
      `one ${kb} KB file (auto)`,
      fmt(m.rg),
      fmt(m.tool),
      `${(m.tool / m.rg).toFixed(2)}×`,
      fmt(m.js),
    ];
    console.log(`| ${row.join(" | ")} | ${(m.js / m.rg).toFixed(2)}× |`);
  }
  await Deno.remove(small, { recursive: true });
}

if (only !== "grep") {
  const registry = new ToolRegistry([createGlobTool()]);
  const walk = new ToolRegistry([createGlobTool({ engine: "in-process" })]);
  console.log(
    "\n| Glob group | files | rg --files + lstat | Glob | Glob / baseline | Glob, walk | walk / baseline |\n|---|---|---|---|---|---|---|",
  );
  for (const c of globCorpus.cases) {
    const root = c.root === "gen" ? corpus.gen : corpus.repo;
    const session = new Session({ roots: [root] });
    const input = { pattern: c.pattern, path: root };
    const m = await interleave({
      base: () => rgFilesAndStat(RG, root, c.pattern),
      glob: () => call(registry, "Glob", input, session),
      walk: () => call(walk, "Glob", input, session),
    });
    const { files } = await rgFilesAndStat(RG, root, c.pattern);
    const row = [c.group, String(files), fmt(m.base), fmt(m.glob), `${(m.glob / m.base).toFixed(2)}×`];
    console.log(`| ${row.join(" | ")} | ${fmt(m.walk)} | ${(m.walk / m.base).toFixed(2)}× |`);
  }
}

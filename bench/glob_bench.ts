/**
 * The Glob tool against a plain baseline in the same process: `rg --files`
 * from the pattern's literal prefix, with the rest of the pattern as rg's
 * glob, and an `lstat` per listed path (`rgFilesAndStat` in
 * `search_cases.ts`). "Glob" is the tool as it runs by default (over
 * `rg --files`); "Glob, walk" is its fallback where rg may not run (a plain
 * readDir walk, `src/search/walk.ts`). Nothing is cached between calls, so
 * every iteration does the whole work (the OS file cache is warm).
 *
 * `deno bench -A bench/glob_bench.ts`; the corpus (see `corpus.ts`) is built on
 * first use. `PADDOCK_BENCH_GEN_FILES=50000 PADDOCK_BENCH_REPO=0` runs on a
 * generated tree of 50,000 files only (no network).
 */
import { ToolRegistry } from "../src/tool/registry.ts";
import { runTool } from "../src/tool/run_tool.ts";
import { Session } from "../src/session/session.ts";
import { locateRipgrep } from "../src/search/ripgrep.ts";
import { createGlobTool } from "../src/tools/glob.ts";
import { ensureCorpus } from "./corpus.ts";
import { globBenchCorpus, rgFilesAndStat } from "./search_cases.ts";

const { options, cases } = globBenchCorpus();
const corpus = await ensureCorpus(options);
const RG = locateRipgrep();
const registry = new ToolRegistry([createGlobTool()]);
const walk = new ToolRegistry([createGlobTool({ engine: "in-process" })]);

async function glob(reg: ToolRegistry, session: Session, root: string, pattern: string): Promise<void> {
  const r = await runTool(reg, { name: "Glob", input: { pattern, path: root } }, { session });
  if (!r.ok) throw new Error(r.text);
}

// `async` on every fn: Deno.bench awaits only what an AsyncFunction returns
const opts = { n: 10, warmup: 2 };
for (const c of cases) {
  const root = c.root === "gen" ? corpus.gen : corpus.repo;
  const session = new Session({ roots: [root] });
  Deno.bench({
    name: `rg --files + lstat ${c.group}`,
    group: c.group,
    baseline: true,
    ...opts,
    fn: async () => void await rgFilesAndStat(RG, root, c.pattern),
  });
  Deno.bench({
    name: `Glob ${c.group}`,
    group: c.group,
    ...opts,
    fn: async () => await glob(registry, session, root, c.pattern),
  });
  Deno.bench({
    name: `Glob, walk ${c.group}`,
    group: c.group,
    ...opts,
    fn: async () => await glob(walk, session, root, c.pattern),
  });
}

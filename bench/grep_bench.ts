/**
 * Grep tool vs raw ripgrep on the corpus (see `corpus.ts`). Each group's
 * baseline is rg with the exact flags the tool passes, spawned the same way
 * (argv array, stdin closed, all output read). The tool runs with
 * `head_limit: 0` so both sides do the same work; one extra group shows a
 * default call (the first 250 lines) on a broad pattern.
 *
 * `deno bench -A bench/grep_bench.ts` (build the corpus first with `deno run -A bench/corpus.ts`)
 */
import { ToolRegistry } from "../src/tool/registry.ts";
import { runTool } from "../src/tool/run_tool.ts";
import { Session } from "../src/session/session.ts";
import { locateRipgrep, rgArgs } from "../src/search/ripgrep.ts";
import { createGrepTool } from "../src/tools/grep/grep.ts";
import { ensureCorpus } from "./corpus.ts";
import { GREP_CASES, grepQueryOf } from "./search_cases.ts";

const corpus = await ensureCorpus({ gen: false });
const RG = locateRipgrep();
const root = corpus.repo;
const session = new Session({ roots: [root] });
const budgets = { matchBudget: 10_000_000, timeBudgetMs: 600_000 };
const rgTool = new ToolRegistry([createGrepTool({ ...budgets, engine: "ripgrep" })]);
const jsTool = new ToolRegistry([createGrepTool({ ...budgets, engine: "in-process" })]);

async function rawRg(args: string[]): Promise<void> {
  const out = await new Deno.Command(RG, { args, cwd: root, stdin: "null", stdout: "piped", stderr: "piped" })
    .output();
  if (out.code === 2) throw new Error(new TextDecoder().decode(out.stderr));
}

async function tool(reg: ToolRegistry, input: Record<string, unknown>): Promise<void> {
  const r = await runTool(reg, { name: "Grep", input: { head_limit: 0, ...input } }, { session });
  if (!r.ok) throw new Error(r.text);
}

const opts = { n: 8, warmup: 1 };
for (const c of GREP_CASES) {
  const args = rgArgs(grepQueryOf(c.input, root));
  Deno.bench({
    name: `rg ${c.group}`,
    group: c.group,
    baseline: true,
    ...opts,
    fn: async () => await rawRg(args),
  });
  Deno.bench({
    name: `Grep ${c.group}`,
    group: c.group,
    ...opts,
    fn: async () => await tool(rgTool, c.input),
  });
  if (c.inProcess) {
    Deno.bench({
      name: `Grep in-process ${c.group}`,
      group: c.group,
      ...opts,
      fn: async () => await tool(jsTool, c.input),
    });
  }
}

// a default call (first 250 lines) on a broad pattern: the tool stops rg at the page
const broad = { pattern: "return", output_mode: "content" };
const broadArgs = rgArgs(grepQueryOf(broad, root));
Deno.bench({
  name: "rg broad (all output)",
  group: "broad-page",
  baseline: true,
  ...opts,
  fn: async () => await rawRg(broadArgs),
});
Deno.bench({
  name: "Grep broad (head_limit 250)",
  group: "broad-page",
  ...opts,
  fn: async () => {
    const r = await runTool(rgTool, { name: "Grep", input: broad }, { session });
    if (!r.ok) throw new Error(r.text);
  },
});

// small scope: one 64 KB file, where a spawn costs more than the search (auto picks in-process)
const small = await Deno.makeTempDir({ prefix: "paddock-grep-bench-" });
const smallFile = `${small}/one.ts`;
await Deno.writeTextFile(
  smallFile,
  "const value = compute(input, options); // an ordinary line\n".repeat(1100),
);
const smallSession = new Session({ roots: [small] });
const autoTool = new ToolRegistry([createGrepTool()]);
const smallInput = { pattern: "options", path: smallFile, output_mode: "content", head_limit: 0 };
const smallArgs = rgArgs({ ...grepQueryOf(smallInput, small), target: "one.ts" });
Deno.bench({
  name: "rg one 64 KB file",
  group: "single-file",
  baseline: true,
  ...opts,
  fn: async () =>
    await new Deno.Command(RG, { args: smallArgs, cwd: small, stdin: "null", stdout: "piped" }).output().then(
      () => {},
    ),
});
Deno.bench({
  name: "Grep one 64 KB file (auto: in-process)",
  group: "single-file",
  ...opts,
  fn: async () => {
    const r = await runTool(autoTool, { name: "Grep", input: smallInput }, { session: smallSession });
    if (!r.ok) throw new Error(r.text);
  },
});
addEventListener("unload", () => Deno.removeSync(small, { recursive: true }));

/**
 * The numbers for the report: the Glob and Grep benchmark cases run
 * interleaved (baseline, tool, baseline, tool…) so machine noise hits both
 * sides alike, and printed as a Markdown table of medians and median ratios.
 *
 * `deno run -A bench/search_medians.ts [rounds=9] [grep|glob]`
 *
 * @module
 */
import { join } from "node:path";
import { ToolRegistry } from "../src/tool/registry.ts";
import { runTool } from "../src/tool/run_tool.ts";
import { Session } from "../src/session/session.ts";
import { splitLiteralPrefix } from "../src/search/glob_match.ts";
import { locateRipgrep, rgArgs } from "../src/search/ripgrep.ts";
import { createGlobTool } from "../src/tools/glob.ts";
import { createGrepTool } from "../src/tools/grep/grep.ts";
import { startWalkHelper, stopWalkHelper } from "../src/search/walk_helper.ts";
import { FloorWalker } from "./_walk_floor.ts";
import { ensureCorpus } from "./corpus.ts";
import { findArgs, GLOB_CASES, GREP_CASES, grepQueryOf, unseenVariant } from "./search_cases.ts";

const rounds = Number(Deno.args[0] ?? 9);
const only = Deno.args[1];
const corpus = await ensureCorpus();
const RG = locateRipgrep();
const FD = ["fdfind", "fd"].find((p) => {
  try {
    return new Deno.Command(p, { args: ["--version"], stdout: "null", stderr: "null" }).outputSync().success;
  } catch {
    return false;
  }
});

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

const FRESH_CHILD = new URL("./_fresh_first.ts", import.meta.url).pathname;
const CONFIG = new URL("../deno.json", import.meta.url).pathname;

/** Times of the walks made ahead in {@link freshFirst} (ms), per Glob case. */
const aheadTimes = new Map<string, number[]>();

/**
 * A first Glob call in a new process (`_fresh_first.ts`): its own time,
 * start-up left out. With `ahead`, the call comes after the workspace was
 * indexed ahead; the walk ahead's time goes to {@link aheadTimes}.
 */
async function freshFirst(root: string, pattern: string, ahead = false): Promise<{ ownMs: number }> {
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", "--config", CONFIG, FRESH_CHILD, root, pattern, ...(ahead ? ["ahead"] : [])],
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).output();
  if (!out.success) throw new Error(`fresh first call: ${new TextDecoder().decode(out.stderr)}`);
  const [ms, aheadMs] = new TextDecoder().decode(out.stdout).trim().split(" ").map(Number);
  if (ahead) aheadTimes.set(`${root}\0${pattern}`, [...aheadTimes.get(`${root}\0${pattern}`) ?? [], aheadMs]);
  return { ownMs: ms };
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
  // as createRuntime does at start-up: the walk helper thread is started before any call
  await startWalkHelper()?.whenReady;
  const registry = new ToolRegistry([createGlobTool()]);
  const solo = new ToolRegistry([createGlobTool({ shareWalks: false })]);
  const floor = new FloorWalker();
  const floorRows: string[] = [];
  console.log(
    "\n| Glob group | rg --files | fd | find | find + mtimes | Glob first | first / fastest walker | first, one thread | first, new process | first, new process, indexed ahead (walk ahead) | warm, same call | first / warm | tenth call in a row | first / tenth | warm, new pattern | first / new |\n|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|",
  );
  for (const c of GLOB_CASES) {
    const root = c.root === "gen" ? corpus.gen : corpus.repo;
    const { prefix, rest } = splitLiteralPrefix(c.pattern);
    const start = prefix ? join(root, prefix) : root;
    const warm = new Session({ roots: [root] });
    const input = { pattern: c.pattern, path: root };
    let unseen = 0;
    const fns: Record<string, Fn> = {
      rg: () =>
        spawn(RG, ["--files", "--hidden", "--no-config", "-g", "!.git", "-g", `/${rest}`, start], root),
      find: () => spawn("find", findArgs(start, c), root),
      findT: () => spawn("find", findArgs(start, c, ["-printf", "%T@ %p\\n"]), root),
      first: () => call(registry, "Glob", input, new Session({ roots: [root] })),
      fresh: () => freshFirst(root, c.pattern),
      ahead: () => freshFirst(root, c.pattern, true),
      solo: () => call(solo, "Glob", input, new Session({ roots: [root] })),
      warm: () => call(registry, "Glob", input, warm),
      // as the issue words it: the tenth of ten calls made back to back in a new session
      tenth: async () => {
        const session = new Session({ roots: [root] });
        for (let k = 0; k < 9; k++) await call(registry, "Glob", input, session);
        const t = performance.now();
        await call(registry, "Glob", input, session);
        return { ownMs: performance.now() - t };
      },
      unseen: () => call(registry, "Glob", { ...input, pattern: unseenVariant(c.pattern, unseen++) }, warm),
    };
    if (FD) {
      fns.fd = () => spawn(FD, ["--type", "f", "--hidden", "--exclude", ".git", ...c.fd, ".", start], root);
    }
    // the floor applies no ignore rules: a fair measure only on the generated tree, which has none
    const suffix = c.pattern.match(/^\*\*\/\*(\.\w+)$/)?.[1];
    if (c.root === "gen" && suffix) {
      fns.floor1 = () => floor.walk(start, suffix, 1);
      fns.floor2 = () => floor.walk(start, suffix, 2);
    }
    const m = await interleave(fns);
    const fastest = Math.min(m.fd ?? Infinity, m.find);
    const row = [
      c.group,
      fmt(m.rg),
      m.fd === undefined ? "–" : fmt(m.fd),
      fmt(m.find),
      fmt(m.findT),
      fmt(m.first),
    ];
    console.log(
      `| ${row.join(" | ")} | ${(m.first / fastest).toFixed(2)}× | ${fmt(m.solo)} (${
        (m.solo / fastest).toFixed(2)
      }×) | ${fmt(m.fresh)} (${(m.fresh / fastest).toFixed(2)}×) | ${fmt(m.ahead)} (${
        (m.ahead / fastest).toFixed(2)
      }×; ${fmt(median(aheadTimes.get(`${root}\0${c.pattern}`)!))}) | ${fmt(m.warm)} | ${
        (m.first / m.warm).toFixed(1)
      }× | ${fmt(m.tenth)} | ${(m.first / m.tenth).toFixed(1)}× | ${fmt(m.unseen)} | ${
        (m.first / m.unseen).toFixed(1)
      }× |`,
    );
    if (m.floor2 !== undefined) {
      const cells = [c.group, fmt(m.floor1), fmt(m.floor2), `${(m.first / m.floor2).toFixed(2)}×`];
      if (m.fd !== undefined) cells.push(`${(m.floor2 / m.fd).toFixed(2)}×`);
      floorRows.push(`| ${cells.join(" | ")} |`);
    }
  }
  await floor.close();
  if (floorRows.length) {
    console.log(
      "\nFloor: readDirSync per folder and statSync per match, keeping nothing, on one and two threads\n\n" +
        "| Glob group | floor, one thread | floor, two threads | Glob first / floor | floor / fd |\n|---|---|---|---|---|",
    );
    for (const row of floorRows) console.log(row);
  }
}
await stopWalkHelper();

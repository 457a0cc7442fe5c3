/**
 * Glob tool vs raw walkers on the corpus (see `corpus.ts`): the baseline is
 * `rg --files -g <glob>` from the pattern's literal prefix; `fd` (Debian's
 * `fdfind`) when installed and a pruned `find` are the other walkers. "Glob
 * first" uses a new session each time (cold index, warm OS cache) with the
 * walk helper thread started beforehand, as `createRuntime` does; "Glob
 * first, one thread" without it; "Glob warm" repeats a call in one session,
 * as an agent's tenth call would (answered from the index's memory after a
 * stat per folder); "Glob warm, new pattern" asks the warm index something it
 * was not asked before (the same files, by a pattern it has not seen).
 *
 * `deno bench -A bench/glob_bench.ts` (build the corpus first with `deno run -A bench/corpus.ts`)
 */
import { join } from "node:path";
import { ToolRegistry } from "../src/tool/registry.ts";
import { runTool } from "../src/tool/run_tool.ts";
import { Session } from "../src/session/session.ts";
import { splitLiteralPrefix } from "../src/search/glob_match.ts";
import { locateRipgrep } from "../src/search/ripgrep.ts";
import { createGlobTool } from "../src/tools/glob.ts";
import { startWalkHelper } from "../src/search/walk_helper.ts";
import { ensureCorpus } from "./corpus.ts";
import { findArgs, GLOB_CASES, unseenVariant } from "./search_cases.ts";

const corpus = await ensureCorpus();
const RG = locateRipgrep();
const registry = new ToolRegistry([createGlobTool()]);
const solo = new ToolRegistry([createGlobTool({ shareWalks: false })]);
await startWalkHelper()?.whenReady;
const FD = ["fdfind", "fd"].find((p) => {
  try {
    return new Deno.Command(p, { args: ["--version"], stdout: "null", stderr: "null" }).outputSync().success;
  } catch {
    return false;
  }
});

async function spawn(cmd: string, args: string[], cwd: string): Promise<void> {
  const out = await new Deno.Command(cmd, { args, cwd, stdin: "null", stdout: "piped", stderr: "piped" })
    .output();
  if (!out.success) throw new Error(`${cmd}: ${new TextDecoder().decode(out.stderr)}`);
}

async function glob(session: Session, root: string, pattern: string, reg = registry): Promise<void> {
  const r = await runTool(reg, { name: "Glob", input: { pattern, path: root } }, { session });
  if (!r.ok) throw new Error(r.text);
}

const opts = { n: 10, warmup: 2 };
for (const k of GLOB_CASES) {
  const c = { ...k, root: k.root === "gen" ? corpus.gen : corpus.repo };
  const { prefix, rest } = splitLiteralPrefix(c.pattern);
  const start = prefix ? join(c.root, prefix) : c.root;
  Deno.bench({
    name: `rg --files ${c.group}`,
    group: c.group,
    baseline: true,
    ...opts,
    fn: async () =>
      await spawn(RG, ["--files", "--hidden", "--no-config", "-g", "!.git", "-g", `/${rest}`, start], c.root),
  });
  if (FD) {
    Deno.bench({
      name: `fd ${c.group}`,
      group: c.group,
      ...opts,
      fn: async () =>
        await spawn(FD, ["--type", "f", "--hidden", "--exclude", ".git", ...c.fd, ".", start], c.root),
    });
  }
  Deno.bench({
    name: `find ${c.group}`,
    group: c.group,
    ...opts,
    fn: async () => await spawn("find", findArgs(start, k), c.root),
  });
  Deno.bench({
    name: `Glob first ${c.group}`,
    group: c.group,
    ...opts,
    fn: async () => await glob(new Session({ roots: [c.root] }), c.root, c.pattern),
  });
  Deno.bench({
    name: `Glob first, one thread ${c.group}`,
    group: c.group,
    ...opts,
    fn: async () => await glob(new Session({ roots: [c.root] }), c.root, c.pattern, solo),
  });
  const warm = new Session({ roots: [c.root] });
  await glob(warm, c.root, c.pattern);
  Deno.bench({
    name: `Glob warm ${c.group}`,
    group: c.group,
    ...opts,
    fn: async () => await glob(warm, c.root, c.pattern),
  });
  let unseen = 0;
  Deno.bench({
    name: `Glob warm, new pattern ${c.group}`,
    group: c.group,
    ...opts,
    fn: async () => await glob(warm, c.root, unseenVariant(c.pattern, unseen++)),
  });
}

/**
 * The start-up budget of the `paddock` command, measured whole-process.
 *
 * Each pair runs its two commands alternately (A B A B …, `runs` pairs after
 * a warm-up that also fills Deno's module cache) and reports the median wall
 * time of each, the median of the per-pair ratios A/B (of wall time, and of
 * CPU time, which other work on a shared machine disturbs less), and the
 * peak RSS of each (the largest of its runs). Paddock runs the way users run
 * it: `deno run -A cli.ts …` (and, in the rows marked so, under the flags
 * `paddock perms` computes, as `deno task start` does).
 *
 * How it measures: every run is spawned by a tiny python3 wrapper (the
 * interpreter itself, not a pyenv shim) that times the child with
 * `perf_counter` around `subprocess.run` and reads its CPU time and peak RSS
 * from `getrusage(RUSAGE_CHILDREN)` (`ru_maxrss`, KiB on Linux), so nothing
 * needs installing and the wrapper's own start-up is not counted. Without
 * python3 the wall times are taken around `Deno.Command`, with no CPU time
 * or RSS.
 *
 * Targets: `paddock --help` ≤ 3× an empty `deno run`; `paddock exec Read` on
 * a small file ≤ 4× it; peak RSS of both ≤ 60 MiB; `paddock exec Grep` ≤
 * 1.3× a thin Deno program that spawns rg for the same query
 * (`bench/_thin_rg.ts`), on a generated tree of {@link TREE_FILES} files
 * (and, for information, on a small one).
 *
 * @example
 * ```sh
 * deno run -A bench/startup.ts        # 11 pairs
 * deno run -A bench/startup.ts 21
 * ```
 *
 * @module
 */
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { locateRipgrep, rgArgs } from "../src/search/ripgrep.ts";

/** Files of the generated Grep tree. */
export const TREE_FILES = 10_000;
/** Files of the small Grep tree. */
export const SMALL_TREE_FILES = 200;
/** Fewest pairs the brief allows. */
const MIN_RUNS = 9;
/** Warm-up runs of each command (module cache, page cache). */
const WARMUP = 2;

const REPO = fileURLToPath(new URL("../", import.meta.url)).replace(/\/$/, "");
const CLI = join(REPO, "cli.ts");
const THIN_RG = join(REPO, "bench", "_thin_rg.ts");
const WORK = join(REPO, "bench", ".cache", "startup");
const DENO = Deno.execPath();

const WRAPPER = `
import json, resource, subprocess, sys, time
before = resource.getrusage(resource.RUSAGE_CHILDREN)  # a pyenv shim's own children are counted in here
t = time.perf_counter()
p = subprocess.run(sys.argv[1:], stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
ms = (time.perf_counter() - t) * 1000
u = resource.getrusage(resource.RUSAGE_CHILDREN)
cpu = (u.ru_utime - before.ru_utime + u.ru_stime - before.ru_stime) * 1000
print(json.dumps({"ms": ms, "cpuMs": cpu, "rssKib": u.ru_maxrss, "code": p.returncode, "err": p.stderr.decode(errors="replace")[-400:]}))
`;

interface Sample {
  /** Wall time. */
  ms: number;
  /** User + system CPU time (less sensitive than wall time to other work on the machine). */
  cpuMs?: number;
  /** Peak RSS. */
  rssKib?: number;
}

interface Pair {
  name: string;
  a: string[];
  b: string[];
  /** Largest allowed median ratio A/B. */
  maxRatio?: number;
  /** Largest allowed peak RSS of A (MiB). */
  maxRssMib?: number;
}

/** The python3 interpreter's own path (not a pyenv shim, whose helpers would count as children). */
let python: string | null | undefined;

async function pythonPath(): Promise<string | null> {
  if (python !== undefined) return python;
  try {
    const out = await new Deno.Command("python3", {
      args: ["-c", "import resource, sys; print(sys.executable)"],
      stdout: "piped",
      stderr: "null",
    }).output();
    python = out.success ? new TextDecoder().decode(out.stdout).trim() || null : null;
  } catch {
    python = null;
  }
  return python;
}

/** Runs `cmd` once; throws when it fails. */
async function measure(cmd: string[]): Promise<Sample> {
  const py = await pythonPath();
  if (py) {
    const out = await new Deno.Command(py, { args: ["-c", WRAPPER, ...cmd], stdout: "piped" }).output();
    const r = JSON.parse(new TextDecoder().decode(out.stdout));
    if (r.code !== 0) throw new Error(`"${cmd.join(" ")}" exited ${r.code}: ${r.err}`);
    return { ms: r.ms, cpuMs: r.cpuMs, rssKib: r.rssKib };
  }
  const t = performance.now();
  const r = await new Deno.Command(cmd[0], {
    args: cmd.slice(1),
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  })
    .output();
  const ms = performance.now() - t;
  if (!r.success) {
    throw new Error(`"${cmd.join(" ")}" exited ${r.code}: ${new TextDecoder().decode(r.stderr)}`);
  }
  return { ms };
}

function median(xs: readonly number[]): number {
  const s = [...xs].sort((x, y) => x - y);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
}

/** A tree of `files` source-like files in folders of 50; one file in 40 contains `needle_value`. */
async function makeTree(dir: string, files: number): Promise<string> {
  const done = join(dir, ".complete");
  try {
    await Deno.stat(done);
    return dir;
  } catch {
    // not built yet
  }
  await Deno.remove(dir, { recursive: true }).catch(() => {});
  const body = (i: number) => {
    let s = `// file ${i}\nimport { helper } from "../shared/helper.ts";\n\n`;
    for (let f = 0; f < 40; f++) {
      s +=
        `export function fn_${i}_${f}(input: number): number {\n  const scaled = helper(input) * ${
          f + 1
        };\n` +
        `  return scaled > ${i} ? scaled - ${f} : scaled + ${i % 97};\n}\n\n`;
    }
    if (i % 40 === 7) s += `export const needle_value = ${i};\n`;
    return s;
  };
  for (let i = 0; i < files; i++) {
    const folder = join(dir, "src", `pkg_${Math.floor(i / 500)}`, `mod_${Math.floor(i / 50) % 10}`);
    if (i % 50 === 0) await Deno.mkdir(folder, { recursive: true });
    await Deno.writeTextFile(join(folder, `file_${i}.ts`), body(i));
  }
  await Deno.writeTextFile(done, "");
  return dir;
}

/** The flags `paddock perms` computes for `args` (what `deno task start` runs cli.ts under). */
async function computedFlags(args: string[]): Promise<string[]> {
  const out = await new Deno.Command(DENO, {
    args: ["run", "-A", CLI, "perms", "--json", "--", ...args],
    stdout: "piped",
    stderr: "piped",
  }).output();
  if (!out.success) throw new Error(new TextDecoder().decode(out.stderr));
  return JSON.parse(new TextDecoder().decode(out.stdout)).flags;
}

async function pairs(): Promise<Pair[]> {
  await Deno.mkdir(WORK, { recursive: true });
  const empty = join(WORK, "empty.ts");
  await Deno.writeTextFile(empty, "");
  const ws = join(WORK, "ws");
  await Deno.mkdir(ws, { recursive: true });
  const small = join(ws, "small.txt");
  await Deno.writeTextFile(small, "one\ntwo\nthree\n");
  const big = await makeTree(join(WORK, "tree"), TREE_FILES);
  const little = await makeTree(join(WORK, "small_tree"), SMALL_TREE_FILES);
  const rg = locateRipgrep();
  const grepInput = JSON.stringify({ pattern: "needle_value" });
  const query = (cwd: string) =>
    rgArgs({
      pattern: "needle_value",
      mode: "files_with_matches",
      caseInsensitive: false,
      lineNumbers: true,
      before: 0,
      after: 0,
      globs: [],
      multiline: false,
      respectIgnore: true,
      cwd,
    });
  const emptyRun = [DENO, "run", empty];
  const read = ["exec", "--root", ws, "Read", JSON.stringify({ file_path: small })];
  const grep = (tree: string) => ["exec", "--root", tree, "Grep", grepInput];
  const readFlags = await computedFlags(read);
  const grepFlags = await computedFlags(grep(big));
  return [
    {
      name: "paddock --help vs empty deno run",
      a: [DENO, "run", "-A", CLI, "--help"],
      b: emptyRun,
      maxRatio: 3,
      maxRssMib: 60,
    },
    {
      name: "paddock --help (--no-prompt, as launch.ts) vs empty",
      a: [DENO, "run", "--no-prompt", CLI, "--help"],
      b: emptyRun,
      maxRatio: 3,
      maxRssMib: 60,
    },
    {
      name: "paddock exec Read vs empty deno run",
      a: [DENO, "run", "-A", CLI, ...read],
      b: emptyRun,
      maxRatio: 4,
      maxRssMib: 60,
    },
    {
      name: "paddock exec Read (computed flags) vs empty",
      a: [DENO, "run", ...readFlags, CLI, ...read],
      b: emptyRun,
      maxRatio: 4,
      maxRssMib: 60,
    },
    {
      name: `paddock exec Grep vs thin rg (${TREE_FILES} files)`,
      a: [DENO, "run", "-A", CLI, ...grep(big)],
      b: [DENO, "run", "-A", THIN_RG, big, rg, ...query(big)],
      maxRatio: 1.3,
    },
    {
      name: `paddock exec Grep (computed flags) vs thin rg (${TREE_FILES} files)`,
      a: [DENO, "run", ...grepFlags, CLI, ...grep(big)],
      b: [DENO, "run", "-A", THIN_RG, big, rg, ...query(big)],
      maxRatio: 1.3,
    },
    {
      name: `paddock exec Grep vs thin rg (${SMALL_TREE_FILES} files, information)`,
      a: [DENO, "run", "-A", CLI, ...grep(little)],
      b: [DENO, "run", "-A", THIN_RG, little, rg, ...query(little)],
    },
  ];
}

const mib = (kib?: number) => (kib === undefined ? "n/a" : (kib / 1024).toFixed(1));
const fixed = (n?: number) => (n === undefined ? "n/a" : n.toFixed(1));

/** The 1-minute load average, to say how busy the machine was (Linux). */
function loadAverage(): string {
  try {
    return Deno.readTextFileSync("/proc/loadavg").split(" ")[0];
  } catch {
    return "n/a";
  }
}

if (import.meta.main) {
  const runs = Math.max(MIN_RUNS, Number(Deno.args[0] ?? 11) || 11);
  const list = await pairs();
  const how = await pythonPath()
    ? "wall and CPU time and peak RSS by a python3 getrusage wrapper"
    : "wall time around Deno.Command (no python3: no CPU time or RSS)";
  console.log(
    `deno ${Deno.version.deno}, ${navigator.hardwareConcurrency} cores, load ${loadAverage()} at start; ` +
      `${runs} alternating pairs each; ${how}\n`,
  );
  console.log(
    "| pair | A median (ms) | B median (ms) | median A/B | A/B of CPU time | target | A peak RSS (MiB) | " +
      "B peak RSS (MiB) | met |",
  );
  console.log("|---|---:|---:|---:|---:|---:|---:|---:|:-:|");
  let failed = false;
  for (const p of list) {
    for (let i = 0; i < WARMUP; i++) {
      await measure(p.a);
      await measure(p.b);
    }
    const a: Sample[] = [];
    const b: Sample[] = [];
    for (let i = 0; i < runs; i++) {
      a.push(await measure(p.a));
      b.push(await measure(p.b));
    }
    const ratio = median(a.map((s, i) => s.ms / b[i].ms));
    const cpuRatio = a.some((s) => s.cpuMs === undefined)
      ? undefined
      : median(a.map((s, i) => s.cpuMs! / b[i].cpuMs!));
    const peak = (xs: Sample[]) =>
      xs.some((s) => s.rssKib === undefined) ? undefined : Math.max(...xs.map((s) => s.rssKib!));
    const rssA = peak(a);
    const ok = (p.maxRatio === undefined || ratio <= p.maxRatio) &&
      (p.maxRssMib === undefined || rssA === undefined || rssA / 1024 <= p.maxRssMib);
    if (p.maxRatio !== undefined && !ok) failed = true;
    const target = [p.maxRatio ? `≤ ${p.maxRatio}×` : "", p.maxRssMib ? `≤ ${p.maxRssMib} MiB` : ""]
      .filter(Boolean).join(", ") || "-";
    console.log(
      `| ${p.name} | ${fixed(median(a.map((s) => s.ms)))} | ${fixed(median(b.map((s) => s.ms)))} | ` +
        `${ratio.toFixed(2)} | ${cpuRatio?.toFixed(2) ?? "n/a"} | ${target} | ${mib(rssA)} | ${
          mib(peak(b))
        } | ${p.maxRatio ? (ok ? "yes" : "no") : "-"} |`,
    );
  }
  console.log(`\nload ${loadAverage()} at the end`);
  Deno.exit(failed ? 1 : 0);
}

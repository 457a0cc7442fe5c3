/**
 * THREATS.md P1 against races (the class: check-then-use on a path string).
 * A background process turns a folder inside the workspace into a symbolic
 * link to an outside folder and back, tens of thousands of times, while one
 * file tool runs many calls on paths under that folder. Nothing outside may
 * be written (the outside folder's listing and contents stay as they were) and
 * no outside content or name may come back in a result. Each tool runs in a
 * child process, under `-A` and under the flags `toDenoFlags` computes for the
 * tools (Deno checks the path as written there, which a symlink swap passes).
 */
import assert from "node:assert/strict";
import { fromFileUrl } from "../_helpers/paths.ts";
import { toDenoFlags } from "../../src/permissions/mod.ts";
import { OUTSIDE_ONLY, raceRegistry, SECRET } from "./_p1_race_child.ts";

const child = fromFileUrl(new URL("./_p1_race_child.ts", import.meta.url));
const swapper = fromFileUrl(new URL("./_p1_swapper.ts", import.meta.url));

/** Calls per tool under -A, and under the computed flags. Spawning rg makes Grep and Glob the slow ones. */
const COUNTS: Record<string, [number, number]> = {
  Write: [1000, 1000],
  Edit: [1000, 1000],
  Read: [1000, 1000],
  NotebookEdit: [500, 300],
  Grep: [1000, 300],
  Glob: [1000, 300],
};

const NOTEBOOK = (text: string) =>
  JSON.stringify({
    cells: [{
      cell_type: "code",
      id: "c0",
      metadata: {},
      source: [text],
      outputs: [],
      execution_count: null,
    }],
    metadata: {},
    nbformat: 4,
    nbformat_minor: 5,
  });

async function setUp() {
  const base = await Deno.realPath(await Deno.makeTempDir({ prefix: "paddock-p1-race-" }));
  const ws = `${base}/ws`, outside = `${base}/outside`, out = `${base}/out`;
  for (const d of [ws, `${ws}/sub`, outside, out]) await Deno.mkdir(d);
  await Deno.writeTextFile(`${ws}/sub/a.txt`, "inside\n");
  await Deno.writeTextFile(`${ws}/sub/e.txt`, "A\n");
  await Deno.writeTextFile(`${ws}/sub/nb.ipynb`, NOTEBOOK("inside"));
  for (const name of ["a.txt", OUTSIDE_ONLY, "w.txt", "new-0.txt"]) {
    await Deno.writeTextFile(`${outside}/${name}`, `${SECRET}\n`);
  }
  await Deno.writeTextFile(`${outside}/e.txt`, `A ${SECRET}\n`);
  await Deno.writeTextFile(`${outside}/nb.ipynb`, NOTEBOOK(SECRET));
  await Deno.symlink(outside, `${ws}/.sub-link`);
  return { base, ws, outside, out };
}

async function snapshot(dir: string): Promise<Record<string, string>> {
  const snap: Record<string, string> = {};
  for await (const e of Deno.readDir(dir)) {
    snap[e.name] = e.isFile
      ? await Deno.readTextFile(`${dir}/${e.name}`)
      : `<${e.isDirectory ? "dir" : "link"}>`;
  }
  return snap;
}

async function race(tool: string, scoped: boolean) {
  const { base, ws, outside, out } = await setUp();
  try {
    const before = await snapshot(outside);
    const swap = new Deno.Command(Deno.execPath(), {
      args: ["run", `--allow-read=${ws}`, `--allow-write=${ws}`, swapper, ws],
      stdout: "piped",
    }).spawn();
    const flags = scoped
      ? toDenoFlags({ tools: raceRegistry().list(), roots: [ws], outputDir: out })
      : ["-A"];
    const count = COUNTS[tool][scoped ? 1 : 0];
    const started = performance.now();
    const run = await new Deno.Command(Deno.execPath(), {
      args: ["run", ...flags, child, ws, out, tool, String(count)],
      cwd: ws,
      stdout: "piped",
      stderr: "piped",
    }).output();
    const ms = Math.round(performance.now() - started);
    await Deno.writeTextFile(`${ws}/.stop`, "");
    const rounds = Number(new TextDecoder().decode((await swap.output()).stdout).trim());
    assert.equal(run.code, 0, new TextDecoder().decode(run.stderr));
    const result = JSON.parse(new TextDecoder().decode(run.stdout));
    console.log(
      `${tool} (${scoped ? "computed flags" : "-A"}): ${result.calls} calls, ${result.ok} ok, ` +
        `${result.leaks.length} leaks, ${rounds} swap rounds, ${ms} ms`,
    );
    console.log(`  failures: ${JSON.stringify(result.errors)}`);
    assert.equal(result.calls, count);
    assert.ok(result.ok > 0, "some calls ran between swaps");
    assert.deepEqual(result.leaks, [], `${tool} showed outside content`);
    assert.deepEqual(await snapshot(outside), before, `${tool} wrote outside`);
    assert.ok(rounds > 0, "the swapper ran");
  } finally {
    await Deno.remove(base, { recursive: true });
  }
}

/**
 * Under the computed flags a write cannot be made relative to an opened folder
 * (Deno refuses `/proc/self/fd` paths, makes relative paths absolute, and
 * resolves a link to `/proc/self/fd` itself): the checks narrow the window but
 * writes still escape now and then (measured on a 2-core machine: about 25
 * temp files outside per 1000 Writes). Those variants stay here,
 * ignored, until writes run where outside paths do not exist (ARCHITECTURE.md,
 * "Race-free file access").
 */
const WRITERS = new Set(["Write", "Edit", "NotebookEdit"]);

for (const scoped of [false, true]) {
  for (const tool of Object.keys(COUNTS)) {
    Deno.test({
      name: `${tool} neither reads nor writes outside while a folder is swapped for an outside symlink (${
        scoped ? "computed flags" : "-A"
      })`,
      ignore: scoped && WRITERS.has(tool),
      fn: () => race(tool, scoped),
    });
  }
}

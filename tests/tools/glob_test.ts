import assert from "node:assert/strict";
import { fileURLToPath } from "node:url";
import { runTool } from "../../src/tool/run_tool.ts";
import { ToolRegistry } from "../../src/tool/registry.ts";
import type { SearchToolOptions } from "../../src/search/options.ts";
import { createGlobTool, type GlobResult } from "../../src/tools/glob.ts";
import type { Session } from "../../src/session/session.ts";
import { type TempWorkspace, tempWorkspace } from "../_helpers/workspace.ts";
import { buildTree } from "../_helpers/search_tree.ts";
import { buildFixture, rawRg } from "./_search_fixture.ts";

/** Glob over `rg --files` (failing rather than falling back), and the plain walk. */
function engines(options: SearchToolOptions = {}): Array<readonly [string, ToolRegistry]> {
  return [
    ["ripgrep", new ToolRegistry([createGlobTool({ ...options, engine: "ripgrep" })])],
    ["in-process", new ToolRegistry([createGlobTool({ ...options, engine: "in-process" })])],
  ];
}
const ENGINES = engines();
const registry = new ToolRegistry([createGlobTool()]);

async function glob(session: Session, input: Record<string, unknown>, reg = registry) {
  const r = await runTool(reg, { name: "Glob", input }, { session });
  return { ...r, data: r.data as GlobResult };
}

/** Glob's paths, relative to the workspace and sorted. */
async function relNames(
  ws: TempWorkspace,
  input: Record<string, unknown>,
  reg = registry,
): Promise<string[]> {
  const r = await glob(ws.session, input, reg);
  assert.ok(r.ok, r.text);
  return r.data.filenames.map((f) => f.slice(ws.dir.length + 1)).sort();
}

Deno.test("Glob returns absolute paths, newest first, hidden files in, .git and ignored files out", async () => {
  await using ws = await tempWorkspace();
  await buildFixture(ws);
  for (const [engine, reg] of [["auto", registry] as const, ...ENGINES]) {
    const r = await glob(ws.session, { pattern: "**/*" }, reg);
    assert.ok(r.ok, r.text);
    const rel = r.data.filenames.map((f) => f.slice(ws.dir.length + 1));
    assert.ok(r.data.filenames.every((f) => f.startsWith(`${ws.dir}/`)));
    assert.deepEqual(
      rel.slice(0, 5),
      [".gitignore", "keep.log", ".hidden/conf.ts", "long.txt", "multi.txt"],
      engine,
    );
    assert.deepEqual(rel.slice(-3), ["README.md", ".ignore", "src/lib/.gitignore"], engine); // equal mtimes: by path
    for (
      const gone of [
        "debug.log",
        "build/out.js",
        "node_modules/pkg/index.js",
        "secret.txt",
        "src/lib/types.gen.ts",
        ".git/HEAD",
      ]
    ) {
      assert.ok(!rel.includes(gone), `${gone} ${engine}`);
    }
    assert.equal(r.text.split("\n")[0], `${ws.dir}/.gitignore`);
  }
});

Deno.test("Glob matches what rg --files lists for the same glob, on both engines", async () => {
  await using ws = await tempWorkspace();
  await buildFixture(ws);
  const listed = new Set(await rawRg(ws.dir, ["--files", "--hidden", "-g", "!.git"]));
  for (
    const pattern of [
      "**/*.ts",
      "src/**/*.ts",
      "**/*.{md,py}",
      "docs/*/nested/*.md",
      "src/*.ts",
      "**/.*",
      "**/util*",
      "*",
      "docs/guide.md",
      "{src,docs}/*",
      "*/lib/*.ts",
      "{src,docs,build}/**/*.{ts,md,js}",
      "s*/**/.gitignore",
      "*/deep/**/*",
      "{src/lib,py}/*",
      "[bn]*/**/*",
    ]
  ) {
    // rg's -g overrides ignore files, so: (files rg lists) ∩ (files the glob matches, ignores off)
    const matching = await rawRg(ws.dir, [
      "--files",
      "--hidden",
      "--no-ignore",
      "-g",
      "!.git",
      "-g",
      `/${pattern}`,
    ]);
    const theirs = matching.filter((f) => listed.has(f)).sort();
    for (const [engine, reg] of ENGINES) {
      assert.deepEqual(await relNames(ws, { pattern }, reg), theirs, `${pattern} ${engine}`);
    }
  }
});

Deno.test("Glob lists nothing under a literal folder that is ignored, missing or .git", async () => {
  await using ws = await tempWorkspace();
  await buildFixture(ws);
  for (const [engine, reg] of ENGINES) {
    for (
      const pattern of ["build/*.js", "node_modules/**/*.js", "nowhere/**/*", ".git/*", "src/lib/missing/*"]
    ) {
      const r = await glob(ws.session, { pattern }, reg);
      assert.equal(r.text, "No files found", `${pattern} ${engine}`);
    }
  }
  const all = engines({ respectGitignore: false });
  for (const [engine, reg] of all) {
    assert.deepEqual(await relNames(ws, { pattern: "build/*.js" }, reg), ["build/out.js"], engine);
  }
});

Deno.test("Glob applies anchored ignore rules to paths, as rg does", async () => {
  await using ws = await tempWorkspace();
  await Deno.mkdir(ws.path(".git"));
  await ws.write(".gitignore", "*.log\n"); // no negation anywhere: the ignore rules' fast path
  await ws.write("docs/.gitignore", "/top.md\ndeep/nested/gone.md\n");
  for (
    const f of ["top.md", "docs/top.md", "docs/deep/top.md", "docs/deep/nested/gone.md", "docs/deep/gone.md"]
  ) {
    await ws.write(f, "x");
  }
  const listed = await rawRg(ws.dir, ["--files", "--hidden", "-g", "!.git"]); // (-g would override the rules)
  for (const [engine, reg] of ENGINES) {
    const mine = await relNames(ws, { pattern: "**/*.md" }, reg);
    assert.deepEqual(mine, listed.filter((f) => f.endsWith(".md")).sort(), engine);
    assert.deepEqual(mine, ["docs/deep/gone.md", "docs/deep/top.md", "top.md"], engine);
  }
});

Deno.test("Glob with respectGitignore false lists ignored files too, .git still out", async () => {
  await using ws = await tempWorkspace();
  await buildFixture(ws);
  for (const [engine, reg] of engines({ respectGitignore: false })) {
    const rel = await relNames(ws, { pattern: "**/*.{log,js}" }, reg);
    assert.deepEqual(rel, ["build/out.js", "debug.log", "keep.log", "node_modules/pkg/index.js"], engine);
    const every = await relNames(ws, { pattern: "**/*" }, reg);
    assert.ok(every.includes("secret.txt") && every.includes("src/lib/types.gen.ts"), engine);
    assert.ok(!every.some((f) => f.startsWith(".git/")), engine);
  }
});

Deno.test("Glob cuts at 100 paths and says so", async () => {
  await using ws = await tempWorkspace();
  for (let i = 0; i < 105; i++) await ws.write(`many/f${String(i).padStart(3, "0")}.txt`, "x");
  for (const [engine, reg] of ENGINES) {
    const r = await glob(ws.session, { pattern: "many/*.txt" }, reg);
    assert.equal(r.data.filenames.length, 100, engine);
    assert.equal(r.data.numFiles, 105);
    assert.ok(r.data.truncated);
    assert.match(r.text, /Showing the 100 most recently modified of 105 files/);
  }
});

Deno.test("Glob keeps the 100 newest of many matches, newest first, ties by path", async () => {
  await using ws = await tempWorkspace();
  const files: Array<{ rel: string; mtime: number }> = [];
  for (let i = 0; i < 900; i++) {
    const rel = `d${i % 3}/f${(i * 7919) % 1000}.txt`;
    // a few hundred distinct seconds, so many files share one, some right at the cut
    const mtime = 1_600_000_000 + ((i * 104_729) % 301);
    await ws.write(rel, "x");
    await Deno.utime(ws.path(rel), mtime, mtime);
    files.push({ rel, mtime });
  }
  files.sort((a, b) => b.mtime - a.mtime || (a.rel < b.rel ? -1 : a.rel > b.rel ? 1 : 0));
  for (const [engine, reg] of ENGINES) {
    const r = await glob(ws.session, { pattern: "**/*.txt" }, reg);
    assert.equal(r.data.numFiles, 900, engine);
    assert.ok(r.data.truncated, engine);
    assert.deepEqual(r.data.filenames, files.slice(0, 100).map((f) => ws.path(f.rel)), engine);
  }
  const few = new ToolRegistry([createGlobTool({ globLimit: 3, engine: "ripgrep" })]);
  const top3 = await glob(ws.session, { pattern: "**/*.txt" }, few);
  assert.deepEqual(top3.data.filenames, files.slice(0, 3).map((f) => ws.path(f.rel)));
});

Deno.test("Glob gives the same answer on both engines over a tree of nested ignore files", async () => {
  await using ws = await tempWorkspace();
  const root = await buildTree(ws);
  for (const pattern of ["**/*", "**/*.ts", "p7/**/*", "p*/m1/*.js", "*"]) {
    const [rg, walk] = await Promise.all(
      ENGINES.map(([, reg]) => glob(ws.session, { pattern, path: root }, reg)),
    );
    assert.ok(rg.ok && walk.ok, `${rg.text} ${walk.text}`);
    assert.deepEqual(walk.data.filenames, rg.data.filenames, pattern);
    assert.equal(walk.data.numFiles, rg.data.numFiles, pattern);
  }
});

Deno.test("Glob sees a file written between two calls (nothing is cached)", async () => {
  await using ws = await tempWorkspace();
  await buildFixture(ws);
  for (const [engine, reg] of ENGINES) {
    const first = await glob(ws.session, { pattern: "src/**/*.ts" }, reg);
    const path = await ws.write(`src/lib/late_${engine}.ts`, "x");
    const second = await glob(ws.session, { pattern: "src/**/*.ts" }, reg);
    assert.equal(second.data.numFiles, first.data.numFiles + 1, engine);
    assert.equal(second.data.filenames[0], path, `${engine}: the newest comes first`);
    await Deno.remove(path);
  }
});

Deno.test("Glob sees files created, deleted and renamed between calls", async () => {
  await using ws = await tempWorkspace();
  await buildFixture(ws);
  await Deno.mkdir(ws.path("src/empty/inner"), { recursive: true });
  const names = (reg: ToolRegistry) => relNames(ws, { pattern: "**/*.ts" }, reg);
  const changes: Array<[string, () => Promise<unknown>]> = [
    ["a file created in a nested folder", () => ws.write("src/lib/created.ts", "x")],
    ["a file created in a folder that was empty", () => ws.write("src/empty/inner/late.ts", "x")],
    ["a file deleted", () => Deno.remove(ws.path("src/lib/util.ts"))],
    ["a file renamed across folders", () => Deno.rename(ws.path("src/app.ts"), ws.path("docs/deep/app.ts"))],
    ["a folder renamed", () => Deno.rename(ws.path("src/a.b"), ws.path("src/ab"))],
    ["a new folder tree", () => ws.write("fresh/dir/new.ts", "x")],
    ["a nested .gitignore edited in place", async () => {
      const f = await Deno.open(ws.path("src/lib/.gitignore"), { append: true });
      await f.write(new TextEncoder().encode("util.test.ts\n"));
      f.close();
    }],
    [
      "the root .ignore edited in place",
      () => Deno.writeTextFile(ws.path(".ignore"), "*.test.ts\nlate.ts\n"),
    ],
  ];
  for (const [what, change] of changes) {
    const before = await names(ENGINES[0][1]);
    await change();
    const theirs = (await rawRg(ws.dir, ["--files", "--hidden", "-g", "!.git"])).filter((f) =>
      f.endsWith(".ts")
    );
    for (const [engine, reg] of ENGINES) {
      const after = await names(reg);
      assert.deepEqual(after, theirs.sort(), `${what} ${engine}`);
      assert.notDeepEqual(after, before, `${what} ${engine}`);
    }
  }
});

Deno.test("Glob keeps answers apart by pattern, folder and ignore option", async () => {
  await using ws = await tempWorkspace();
  await buildFixture(ws);
  const all = new ToolRegistry([createGlobTool({ respectGitignore: false })]);
  for (let round = 0; round < 2; round++) {
    const ts = await glob(ws.session, { pattern: "**/*.ts" });
    const js = await glob(ws.session, { pattern: "**/*.js" });
    const jsAll = await glob(ws.session, { pattern: "**/*.js" }, all);
    const sub = await glob(ws.session, { pattern: "**/*.ts", path: ws.path("src") });
    assert.ok(ts.data.filenames.every((f) => f.endsWith(".ts")) && ts.data.numFiles === 5);
    assert.deepEqual(js.data.filenames, []);
    assert.deepEqual(jsAll.data.filenames.sort(), [
      ws.path("build/out.js"),
      ws.path("node_modules/pkg/index.js"),
    ]);
    assert.deepEqual(sub.data.filenames, ts.data.filenames.filter((f) => f.startsWith(ws.path("src/"))));
  }
});

Deno.test("Glob applies a .gitignore edited in place between calls", async () => {
  await using ws = await tempWorkspace();
  await buildFixture(ws);
  for (const [engine, reg] of ENGINES) {
    await ws.write(".gitignore", "node_modules\n*.log\n/build/\n!keep.log\n");
    assert.equal((await glob(ws.session, { pattern: "**/*.md" }, reg)).data.numFiles, 3, engine);
    const f = await Deno.open(ws.path(".gitignore"), { append: true });
    await f.write(new TextEncoder().encode("docs/\n"));
    f.close();
    const r = await glob(ws.session, { pattern: "**/*.md" }, reg);
    assert.deepEqual(r.data.filenames, [ws.path("README.md")], engine);
  }
});

Deno.test("Glob applies the repository's .git/info/exclude edited in place between calls", async () => {
  await using ws = await tempWorkspace();
  await ws.write("a.txt", "x");
  await ws.write("sub/b.tmp", "x");
  for (const [engine, reg] of ENGINES) {
    await ws.write(".git/info/exclude", "*.tmp\n");
    assert.deepEqual(await relNames(ws, { pattern: "**/*" }, reg), ["a.txt"], engine);
    await Deno.writeTextFile(ws.path(".git/info/exclude"), "*.txt\n");
    assert.deepEqual(await relNames(ws, { pattern: "**/*" }, reg), ["sub/b.tmp"], engine);
  }
});

Deno.test("Glob takes an absolute pattern and refuses paths outside the workspace", async () => {
  await using ws = await tempWorkspace();
  await buildFixture(ws);
  const abs = await glob(ws.session, { pattern: `${ws.dir}/src/lib/*.ts` });
  assert.deepEqual(abs.data.filenames.sort(), [ws.path("src/lib/util.test.ts"), ws.path("src/lib/util.ts")]);
  const outside = await glob(ws.session, { pattern: "*", path: "/etc" });
  assert.equal(outside.error?.code, "permission_denied");
  const relative = await glob(ws.session, { pattern: "*", path: "src" });
  assert.equal(relative.error?.code, "invalid_input");
  const file = await glob(ws.session, { pattern: "*", path: ws.path("README.md") });
  assert.equal(file.error?.code, "invalid_input");
  const climb = await glob(ws.session, { pattern: "../*", path: ws.path("src") });
  assert.equal(climb.error?.code, "invalid_input");
  const none = await glob(ws.session, { pattern: "**/*.nothing" });
  assert.equal(none.text, "No files found");
  const sub = await glob(ws.session, { pattern: "*.ts", path: ws.path("src/lib") });
  assert.deepEqual(sub.data.filenames.sort(), [ws.path("src/lib/util.test.ts"), ws.path("src/lib/util.ts")]);
});

Deno.test("Glob stops a parent's .gitignore at a nested repository, as rg does", async () => {
  await using ws = await tempWorkspace();
  await Deno.mkdir(ws.path(".git"));
  await ws.write(".gitignore", "*.foo\n");
  await ws.write(".ignore", "*.bar\n");
  await Deno.mkdir(ws.path("inner/.git"), { recursive: true });
  await ws.write("inner/a.foo", "x");
  await ws.write("inner/b.bar", "x");
  await ws.write("inner/sub/c.foo", "x");
  await ws.write("plain/d.foo", "x");
  await ws.write("plain/e.txt", "x");
  for (const path of [ws.dir, ws.path("inner")]) {
    const theirs = (await rawRg(path, ["--files", "--hidden", "-g", "!.git"])).sort();
    for (const [engine, reg] of ENGINES) {
      const r = await glob(ws.session, { pattern: "**/*", path }, reg);
      const mine = r.data.filenames.map((f) => f.slice(path.length + 1)).sort();
      assert.deepEqual(mine, theirs, `${path} ${engine}`);
    }
  }
});

Deno.test("Glob applies a change to an ignore file above the searched folder", async () => {
  await using ws = await tempWorkspace();
  await ws.write("sub/a.txt", "x");
  await ws.write("sub/b.tmp", "x");
  for (const [engine, reg] of ENGINES) {
    await ws.write(".ignore", "*.tmp\n");
    const names = () => relNames(ws, { pattern: "*", path: ws.path("sub") }, reg);
    assert.deepEqual(await names(), ["sub/a.txt"], engine);
    await Deno.writeTextFile(ws.path(".ignore"), "*.txt\n");
    assert.deepEqual(await names(), ["sub/b.tmp"], engine);
  }
});

Deno.test("Glob sees a file added to a folder whose mtime was then set back", async () => {
  await using ws = await tempWorkspace();
  await ws.write("sub/a.txt", "x");
  const old = new Date(Date.now() - 3_600_000);
  for (const [engine, reg] of ENGINES) {
    await Deno.utime(ws.path("sub"), old, old);
    const names = () => relNames(ws, { pattern: "sub/*" }, reg);
    assert.deepEqual(await names(), ["sub/a.txt"], engine);
    await ws.write("sub/b.txt", "x"); // as `tar x` or `rsync -a` would: add, then restore the folder's old mtime
    await Deno.utime(ws.path("sub"), old, old);
    assert.deepEqual(await names(), ["sub/a.txt", "sub/b.txt"], engine);
    await Deno.remove(ws.path("sub/b.txt"));
  }
});

Deno.test("Glob reports an abort as one on both engines", async () => {
  await using ws = await tempWorkspace();
  for (let i = 0; i < 300; i++) await ws.write(`tree/d${i}/f.ts`, "x");
  for (const [engine, reg] of ENGINES) {
    const controller = new AbortController();
    controller.abort();
    const r = await runTool(reg, { name: "Glob", input: { pattern: "**/*.ts" } }, {
      session: ws.session,
      signal: controller.signal,
    });
    assert.equal(r.error?.code, "aborted", engine);
  }
});

Deno.test("Glob falls back to the walk where rg is missing, and fails instead with engine ripgrep", async () => {
  await using ws = await tempWorkspace();
  await buildFixture(ws);
  const expected = await relNames(ws, { pattern: "**/*.ts" });
  const rgPath = ws.path("no/such/rg");
  const missing = new ToolRegistry([createGlobTool({ rgPath })]);
  assert.deepEqual(await relNames(ws, { pattern: "**/*.ts" }, missing), expected);
  const strict = new ToolRegistry([createGlobTool({ rgPath, engine: "ripgrep" })]);
  const r = await glob(ws.session, { pattern: "**/*.ts" }, strict);
  assert.equal(r.ok, false);
});

Deno.test("Glob falls back to the walk where rg may not run", async () => {
  await using ws = await tempWorkspace();
  await buildFixture(ws);
  const expected = (await glob(ws.session, { pattern: "**/*" })).data;
  const child = fileURLToPath(new URL("./_glob_child.ts", import.meta.url));
  const out = await new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      "--no-prompt",
      `--allow-read=${ws.dir}`,
      child,
      ws.dir,
      JSON.stringify({ pattern: "**/*" }),
    ],
    stdout: "piped",
    stderr: "piped",
  }).output();
  assert.ok(out.success, new TextDecoder().decode(out.stderr));
  const result = JSON.parse(new TextDecoder().decode(out.stdout));
  assert.ok(result.ok, result.text);
  assert.deepEqual(result.data.filenames, expected.filenames);
});

Deno.test("Glob declares its rg binary for the Deno flag computation, unless in process", () => {
  assert.equal(createGlobTool().programs?.length, 1);
  assert.deepEqual(createGlobTool({ engine: "in-process" }).programs, []);
});

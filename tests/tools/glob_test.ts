import assert from "node:assert/strict";
import { runTool } from "../../src/tool/run_tool.ts";
import { ToolRegistry } from "../../src/tool/registry.ts";
import { createGlobTool, type GlobResult } from "../../src/tools/glob.ts";
import { sessionIndex } from "../../src/search/options.ts";
import { Session } from "../../src/session/session.ts";
import { pastRacyWindow, type TempWorkspace, tempWorkspace } from "../_helpers/workspace.ts";
import { buildFixture, rawRg } from "./_search_fixture.ts";

const registry = new ToolRegistry([createGlobTool()]);

async function glob(session: Session, input: Record<string, unknown>, reg = registry) {
  const r = await runTool(reg, { name: "Glob", input }, { session });
  return { ...r, data: r.data as GlobResult };
}

/** Glob's paths, relative to the workspace and sorted. */
async function relNames(
  ws: TempWorkspace,
  input: Record<string, unknown>,
  session = ws.session,
): Promise<string[]> {
  return (await glob(session, input)).data.filenames.map((f) => f.slice(ws.dir.length + 1)).sort();
}

Deno.test("Glob returns absolute paths, newest first, hidden files in, .git and ignored files out", async () => {
  await using ws = await tempWorkspace();
  await buildFixture(ws);
  const r = await glob(ws.session, { pattern: "**/*" });
  assert.ok(r.ok, r.text);
  const rel = r.data.filenames.map((f) => f.slice(ws.dir.length + 1));
  assert.ok(r.data.filenames.every((f) => f.startsWith(`${ws.dir}/`)));
  assert.deepEqual(rel.slice(0, 5), [".gitignore", "keep.log", ".hidden/conf.ts", "long.txt", "multi.txt"]);
  assert.deepEqual(rel.slice(-3), ["README.md", ".ignore", "src/lib/.gitignore"]); // equal mtimes: by path
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
    assert.ok(!rel.includes(gone), gone);
  }
  assert.equal(r.text.split("\n")[0], `${ws.dir}/.gitignore`);
});

Deno.test("Glob matches what rg --files lists for the same glob", async () => {
  await using ws = await tempWorkspace();
  await buildFixture(ws);
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
    ]
  ) {
    const r = await glob(ws.session, { pattern });
    const mine = r.data.filenames.map((f) => f.slice(ws.dir.length + 1)).sort();
    // rg's -g overrides ignore files, so: (files rg lists) ∩ (files the glob matches, ignores off)
    const listed = new Set(await rawRg(ws.dir, ["--files", "--hidden", "-g", "!.git"]));
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
    assert.deepEqual(mine, theirs, pattern);
  }
});

Deno.test("Glob applies anchored ignore rules to paths, as rg does", async () => {
  await using ws = await tempWorkspace();
  await Deno.mkdir(ws.path(".git"));
  await ws.write(".gitignore", "*.log\n"); // no negation anywhere: the walk's fast path
  await ws.write("docs/.gitignore", "/top.md\ndeep/nested/gone.md\n");
  for (
    const f of ["top.md", "docs/top.md", "docs/deep/top.md", "docs/deep/nested/gone.md", "docs/deep/gone.md"]
  ) {
    await ws.write(f, "x");
  }
  const r = await glob(ws.session, { pattern: "**/*.md" });
  const mine = r.data.filenames.map((f) => f.slice(ws.dir.length + 1)).sort();
  const listed = await rawRg(ws.dir, ["--files", "--hidden", "-g", "!.git"]); // (-g would override the rules)
  assert.deepEqual(mine, listed.filter((f) => f.endsWith(".md")).sort());
  assert.deepEqual(mine, ["docs/deep/gone.md", "docs/deep/top.md", "top.md"]);
});

Deno.test("Glob respects the respectGitignore option", async () => {
  await using ws = await tempWorkspace();
  await buildFixture(ws);
  const all = new ToolRegistry([createGlobTool({ respectGitignore: false })]);
  const r = await glob(ws.session, { pattern: "**/*.{log,js}" }, all);
  const rel = r.data.filenames.map((f) => f.slice(ws.dir.length + 1)).sort();
  assert.deepEqual(rel, ["build/out.js", "debug.log", "keep.log", "node_modules/pkg/index.js"]);
});

Deno.test("Glob cuts at 100 paths and says so", async () => {
  await using ws = await tempWorkspace();
  for (let i = 0; i < 105; i++) await ws.write(`many/f${String(i).padStart(3, "0")}.txt`, "x");
  const r = await glob(ws.session, { pattern: "many/*.txt" });
  assert.equal(r.data.filenames.length, 100);
  assert.equal(r.data.numFiles, 105);
  assert.ok(r.data.truncated);
  assert.match(r.text, /Showing the 100 most recently modified of 105 files/);
});

Deno.test("Glob keeps the 100 newest of many matches, ties by path", async () => {
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
  const r = await glob(ws.session, { pattern: "**/*.txt" });
  assert.equal(r.data.numFiles, 900);
  assert.deepEqual(r.data.filenames, files.slice(0, 100).map((f) => ws.path(f.rel)));
});

Deno.test("Glob walks only from the pattern's literal prefix", async () => {
  await using ws = await tempWorkspace();
  await buildFixture(ws);
  const index = sessionIndex(ws.session);
  const r = await glob(ws.session, { pattern: "docs/deep/**/*.md" });
  assert.deepEqual(r.data.filenames, [ws.path("docs/deep/nested/page.md")]);
  assert.equal(index.reads, 4); // the root, docs, docs/deep and docs/deep/nested; nothing else
});

Deno.test("Glob's second call on an unchanged tree reads no folder again", async () => {
  await using ws = await tempWorkspace();
  await buildFixture(ws);
  await pastRacyWindow();
  const index = sessionIndex(ws.session);
  const first = await glob(ws.session, { pattern: "**/*.ts" });
  const reads = index.reads;
  const second = await glob(ws.session, { pattern: "**/*.ts" });
  assert.equal(index.reads, reads);
  assert.deepEqual(second.data.filenames, first.data.filenames);
});

Deno.test("Glob sees files created, deleted and renamed between calls", async () => {
  await using ws = await tempWorkspace();
  await buildFixture(ws);
  const names = () => relNames(ws, { pattern: "**/*.ts" });
  const before = await names();
  await ws.write("src/lib/created.ts", "new");
  assert.deepEqual(await names(), [...before, "src/lib/created.ts"].sort());
  await Deno.remove(ws.path("src/lib/util.ts"));
  assert.ok(!(await names()).includes("src/lib/util.ts"));
  await Deno.rename(ws.path("src/app.ts"), ws.path("docs/app.ts"));
  const after = await names();
  assert.ok(after.includes("docs/app.ts") && !after.includes("src/app.ts"));
  await Deno.mkdir(ws.path("fresh/dir"), { recursive: true });
  await ws.write("fresh/dir/new.ts", "x");
  assert.ok((await names()).includes("fresh/dir/new.ts"));
});

Deno.test("Glob answers a repeated call from memory only while every folder it read is unchanged", async () => {
  await using ws = await tempWorkspace();
  await buildFixture(ws);
  await Deno.mkdir(ws.path("src/empty/inner"), { recursive: true });
  const index = sessionIndex(ws.session);
  const names = () => relNames(ws, { pattern: "**/*.ts" });
  const truth = () => relNames(ws, { pattern: "**/*.ts" }, new Session({ roots: [ws.dir] }));
  /** Past the racy window of what was just read, a call refreshes the memory and the next is answered from it. */
  const settle = async () => {
    await pastRacyWindow();
    const refreshed = await names();
    const recalled = index.recalled;
    assert.deepEqual(await names(), refreshed);
    assert.equal(index.recalled, recalled + 1, "answered from memory");
  };
  await settle();
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
    const before = await names();
    await change();
    const after = await names(); // at once: the change is seen although the memory holds the old answer
    assert.deepEqual(after, await truth(), what);
    assert.notDeepEqual(after, before, what);
    await settle();
  }
});

Deno.test("Glob's memory keeps answers apart by pattern, folder and ignore option", async () => {
  await using ws = await tempWorkspace();
  await buildFixture(ws);
  await pastRacyWindow();
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
  assert.equal(sessionIndex(ws.session).recalled, 4);
});

Deno.test("Glob applies a .gitignore edited in place between calls", async () => {
  await using ws = await tempWorkspace();
  await buildFixture(ws);
  await pastRacyWindow();
  assert.ok((await glob(ws.session, { pattern: "**/*.md" })).data.numFiles === 3);
  const f = await Deno.open(ws.path(".gitignore"), { append: true });
  await f.write(new TextEncoder().encode("docs/\n"));
  f.close();
  const r = await glob(ws.session, { pattern: "**/*.md" });
  assert.deepEqual(r.data.filenames, [ws.path("README.md")]);
});

Deno.test("Glob applies the repository's .git/info/exclude edited in place between calls", async () => {
  await using ws = await tempWorkspace();
  await ws.write(".git/info/exclude", "*.tmp\n");
  await ws.write("a.txt", "x");
  await ws.write("sub/b.tmp", "x");
  await pastRacyWindow();
  const names = () => relNames(ws, { pattern: "**/*" });
  assert.deepEqual(await names(), ["a.txt"]);
  assert.deepEqual(await names(), ["a.txt"]);
  await Deno.writeTextFile(ws.path(".git/info/exclude"), "*.txt\n");
  assert.deepEqual(await names(), ["sub/b.tmp"]);
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
  for (const [path, cwd] of [[ws.dir, ws.dir], [ws.path("inner"), ws.path("inner")]]) {
    const r = await glob(ws.session, { pattern: "**/*", path });
    const mine = r.data.filenames.map((f) => f.slice(cwd.length + 1)).sort();
    const theirs = (await rawRg(cwd, ["--files", "--hidden", "-g", "!.git"])).sort();
    assert.deepEqual(mine, theirs, path);
  }
});

Deno.test("Glob applies a change to an ignore file above the searched folder", async () => {
  await using ws = await tempWorkspace();
  await ws.write(".ignore", "*.tmp\n");
  await ws.write("sub/a.txt", "x");
  await ws.write("sub/b.tmp", "x");
  await pastRacyWindow();
  const names = () => relNames(ws, { pattern: "*", path: ws.path("sub") });
  assert.deepEqual(await names(), ["sub/a.txt"]);
  await Deno.writeTextFile(ws.path(".ignore"), "*.txt\n");
  assert.deepEqual(await names(), ["sub/b.tmp"]);
});

Deno.test("Glob's memory outlives a change above the searched folder that leaves its ignore rules alone", async () => {
  await using ws = await tempWorkspace();
  await ws.write(".git/info/exclude", "*.tmp\n");
  await ws.write("sub/a.txt", "x");
  await ws.write("sub/b.tmp", "x");
  await ws.write("sub/c.md", "x");
  await pastRacyWindow();
  const index = sessionIndex(ws.session);
  const names = () => relNames(ws, { pattern: "*", path: ws.path("sub") });
  assert.deepEqual(await names(), ["sub/a.txt", "sub/c.md"]);
  await ws.write("unrelated.txt", "x"); // the folder above changes, its rules do not
  await pastRacyWindow();
  const recalled = index.recalled;
  assert.deepEqual(await names(), ["sub/a.txt", "sub/c.md"]);
  assert.equal(index.recalled, recalled + 1, "answered from memory");
  await Deno.writeTextFile(ws.path(".git/info/exclude"), "*.md\n");
  assert.deepEqual(await names(), ["sub/a.txt", "sub/b.tmp"]);
});

Deno.test("Glob's walk gives the event loop a turn, so an abort lands mid-walk", async () => {
  await using ws = await tempWorkspace();
  for (let i = 0; i < 300; i++) await Deno.mkdir(ws.path(`tree/d${i}`), { recursive: true });
  await ws.write("tree/d7/hit.ts", "x");
  const index = sessionIndex(ws.session);
  const controller = new AbortController();
  setTimeout(() => controller.abort(), 0); // fires at the walk's first turn
  const onFile = () => {};
  const done = await index.walkAsync(ws.path("tree"), { signal: controller.signal, sliceMs: 0, onFile });
  assert.equal(done, false);
  assert.ok(index.reads < 301, `read ${index.reads} folders of 301`);
  // unaborted, the same walk finishes and finds the file
  const seen: string[] = [];
  const all = await index.walkAsync(ws.path("tree"), {
    sliceMs: 0,
    onFile: (relDir, name) => void seen.push(`${relDir}/${name}`),
  });
  assert.equal(all, true);
  assert.deepEqual(seen, ["d7/hit.ts"]);
  // and Glob itself reports an abort as one
  const pre = new AbortController();
  pre.abort();
  const r = await runTool(registry, { name: "Glob", input: { pattern: "**/*.ts" } }, {
    session: ws.session,
    signal: pre.signal,
  });
  assert.equal(r.error?.code, "aborted");
});

Deno.test("Glob sees a folder changed and set back in time within the second it was read", async () => {
  await using ws = await tempWorkspace();
  await ws.write("sub/a.txt", "x");
  const old = new Date(Date.now() - 3_600_000);
  await Deno.utime(ws.path("sub"), old, old);
  // early in a second, so the read, the change and the set-back share it (Deno gives ctime in whole seconds)
  await new Promise((r) => setTimeout(r, 1100 - (Date.now() % 1000)));
  const names = () => relNames(ws, { pattern: "sub/*" });
  assert.deepEqual(await names(), ["sub/a.txt"]);
  await ws.write("sub/b.txt", "x"); // as `tar x` or `rsync -a` would: add, then restore the folder's old mtime
  await Deno.utime(ws.path("sub"), old, old);
  assert.deepEqual(await names(), ["sub/a.txt", "sub/b.txt"]);
});

import assert from "node:assert/strict";
import { fileURLToPath } from "node:url";
import { runTool } from "../../../src/tool/run_tool.ts";
import { ToolRegistry } from "../../../src/tool/registry.ts";
import type { SearchToolOptions } from "../../../src/search/options.ts";
import { createGrepTool, type GrepResult } from "../../../src/tools/grep/grep.ts";
import type { Session } from "../../../src/session/session.ts";
import { tempWorkspace } from "../../_helpers/workspace.ts";
import { buildFixture, ORDER, rawRg, RG } from "../_search_fixture.ts";

const auto = new ToolRegistry([createGrepTool()]);
const inProcess = new ToolRegistry([createGrepTool({ engine: "in-process" })]);
const ENGINES = [["ripgrep", auto], ["in-process", inProcess]] as const;

async function grep(session: Session, input: Record<string, unknown>, reg = auto) {
  const r = await runTool(reg, { name: "Grep", input }, { session });
  return { ...r, data: r.data as GrepResult };
}

/** Raw rg with the flags the contract implies, spelled out by hand. */
function rgFlags(q: Record<string, unknown>, mode: string): string[] {
  const a = ["--no-config", "--hidden", "-g", "!.git", "--color", "never", "--no-heading", "-H"];
  if (mode === "content") {
    a.push("-n", "--sort", "path", "--max-columns", "500", "--max-columns-preview");
    if (q.context !== undefined) a.push("-C", String(q.context));
    if (q["-A"] !== undefined) a.push("-A", String(q["-A"]));
    if (q["-B"] !== undefined) a.push("-B", String(q["-B"]));
  } else a.push(mode === "count" ? "-c" : "-l");
  if (q["-i"]) a.push("-i");
  if (q.multiline) a.push("-U", "--multiline-dotall");
  if (q.type) a.push("-t", String(q.type));
  for (const g of String(q.glob ?? "").split(",").filter(Boolean)) a.push("-g", g);
  return [...a, "-e", String(q.pattern)];
}

const QUERIES: Record<string, unknown>[] = [
  { pattern: "TODO" },
  { pattern: "todo", "-i": true },
  { pattern: "TODO", glob: "*.ts,*.md" },
  { pattern: "TODO", glob: "!*.md" },
  { pattern: "TODO", type: "py" },
  { pattern: "^const [a-c] = \\d" },
  { pattern: "\\bfunction\\b" },
  { pattern: "alpha\\nbeta", multiline: true },
  { pattern: "beta.gamma", multiline: true },
  { pattern: "TODO", context: 1 },
  { pattern: "TODO", "-A": 2, "-B": 1 },
  { pattern: "-dash" },
  { pattern: "x+TODO" },
  { pattern: "TODO[^x]*last" }, // a whole-text scan would span lines here; rg's lines never do
  { pattern: "\\s+const" },
];

Deno.test("Grep output equals raw rg's for every query, mode and engine", async () => {
  await using ws = await tempWorkspace();
  await buildFixture(ws);
  for (const q of QUERIES) {
    for (const mode of ["content", "files_with_matches", "count"]) {
      const expected = await rawRg(ws.dir, rgFlags(q, mode));
      for (const [engine, reg] of ENGINES) {
        const r = await grep(ws.session, { ...q, output_mode: mode, head_limit: 0 }, reg);
        assert.ok(r.ok, r.text);
        const label = `${JSON.stringify(q)} ${mode} ${engine}`;
        if (mode === "content") assert.deepEqual(r.data.entries, expected, label);
        else assert.deepEqual([...r.data.entries].sort(), [...expected].sort(), label);
        assert.ok(expected.length > 0, `query finds nothing: ${label}`);
      }
    }
  }
});

Deno.test("Grep on a single file equals raw rg whichever engine runs", async () => {
  await using ws = await tempWorkspace();
  await buildFixture(ws);
  const forced = new ToolRegistry([createGrepTool({ engine: "ripgrep" })]);
  for (
    const q of [{ pattern: "TODO" }, { pattern: "const [a-c]", context: 1 }, { pattern: "todo", "-i": true }]
  ) {
    for (const mode of ["content", "count", "files_with_matches"]) {
      const expected = await rawRg(ws.dir, [...rgFlags(q, mode), "--", "src/app.ts"]);
      for (const reg of [auto, forced, inProcess]) {
        const r = await grep(ws.session, { ...q, path: ws.path("src/app.ts"), output_mode: mode }, reg);
        assert.deepEqual(r.data.entries, expected, `${JSON.stringify(q)} ${mode}`);
      }
    }
  }
  const small = await grep(ws.session, { pattern: "TODO", path: ws.path("src/app.ts") });
  // rg whenever it may run, even for one small file: an in-process regex cannot be interrupted
  assert.equal(small.data.engine, "ripgrep");
});

Deno.test("Grep pages are disjoint and consecutive in every mode", async () => {
  await using ws = await tempWorkspace();
  await buildFixture(ws);
  for (const [engine, reg] of ENGINES) {
    for (const mode of ["content", "files_with_matches", "count"]) {
      const all =
        (await grep(ws.session, { pattern: "TODO|alpha", output_mode: mode, head_limit: 0, "-C": 1 }, reg))
          .data.entries;
      const pages: string[] = [];
      for (let offset = 0; offset < all.length + 3; offset += 3) {
        const r = await grep(ws.session, {
          pattern: "TODO|alpha",
          output_mode: mode,
          head_limit: 3,
          offset,
          "-C": 1,
        }, reg);
        if (offset + 3 < all.length) assert.match(r.text, new RegExp(`use offset=${offset + 3} for more`));
        pages.push(...r.data.entries);
      }
      assert.deepEqual(pages, all, `${mode} ${engine}`);
      assert.ok(all.length > 6);
    }
  }
});

Deno.test("Grep lists files newest first by default and paths relative to the cwd", async () => {
  await using ws = await tempWorkspace();
  await buildFixture(ws);
  for (const [engine, reg] of ENGINES) {
    const r = await grep(ws.session, { pattern: "TODO" }, reg);
    const expected = [...ORDER].reverse().filter((f) => r.data.entries.includes(f));
    assert.deepEqual(r.data.entries, expected, engine);
    assert.match(r.text, /^Found 10 files\nkeep\.log\n\.hidden\/conf\.ts\n/);
    const sub = await grep(ws.session, { pattern: "TODO", path: ws.path("docs") }, reg);
    assert.deepEqual(sub.data.entries, ["docs/deep/nested/page.md", "docs/guide.md"], engine);
  }
});

Deno.test("Grep flags: -n, -i, context precedence, glob lists, long lines", async () => {
  await using ws = await tempWorkspace();
  await buildFixture(ws);
  const path = ws.path("src/app.ts");
  for (const [engine, reg] of ENGINES) {
    const run = async (extra: Record<string, unknown>) =>
      (await grep(ws.session, { pattern: "TODO: first", path, output_mode: "content", ...extra }, reg)).data
        .entries;
    assert.deepEqual(await run({}), ["src/app.ts:2:// TODO: first"], engine);
    assert.deepEqual(await run({ "-n": false }), ["src/app.ts:// TODO: first"]);
    assert.deepEqual(await run({ pattern: "todo: first", "-i": true }), ["src/app.ts:2:// TODO: first"]);
    assert.deepEqual(await run({ "-B": 1, "-A": 2 }), [
      "src/app.ts-1-import x from './x';",
      "src/app.ts:2:// TODO: first",
      "src/app.ts-3-const a = 1;",
      "src/app.ts-4-const b = 2;",
    ]);
    assert.equal((await run({ "-C": 1, "-B": 0, "-A": 3 })).length, 3); // -C wins over -B/-A
    assert.equal((await run({ context: 0, "-C": 2 })).length, 1); // context wins over -C
    const globs = await grep(ws.session, { pattern: "TODO", glob: "*.py *.{md,txt}", head_limit: 0 }, reg);
    assert.deepEqual([...globs.data.entries].sort(), [
      "README.md",
      "docs/deep/nested/page.md",
      "docs/guide.md",
      "long.txt",
      "py/main.py",
      "secret.txt", // as rg: a glob overrides ignore files
    ]);
    const long = await grep(ws.session, {
      pattern: "TODO",
      path: ws.path("long.txt"),
      output_mode: "content",
    }, reg);
    assert.equal(long.data.entries[0], `long.txt:1:${"x".repeat(500)} [... omitted end of long line]`);
  }
});

Deno.test("Grep handles a leading dash, no match, a bad regex, a bad type and bad paths", async () => {
  await using ws = await tempWorkspace();
  await buildFixture(ws);
  for (const [engine, reg] of ENGINES) {
    const dash = await grep(ws.session, { pattern: "-dash", output_mode: "content" }, reg);
    assert.deepEqual(dash.data.entries, ["README.md:4:-dash line here"], engine);
    assert.equal((await grep(ws.session, { pattern: "nothing-matches-this" }, reg)).text, "No files found");
    assert.equal(
      (await grep(ws.session, { pattern: "nothing-matches-this", output_mode: "content" }, reg)).text,
      "No matches found",
    );
    const bad = await grep(ws.session, { pattern: "a(b" }, reg);
    assert.equal(bad.error?.code, "invalid_input", engine);
    assert.match(bad.text, /Invalid regex "a\(b"/);
    const type = await grep(ws.session, { pattern: "x", type: "nosuchtype" }, reg);
    assert.equal(type.error?.code, "invalid_input", engine);
    assert.equal(
      (await grep(ws.session, { pattern: "x", path: "/etc" }, reg)).error?.code,
      "permission_denied",
    );
    assert.equal((await grep(ws.session, { pattern: "x", path: "src" }, reg)).error?.code, "invalid_input");
    assert.equal(
      (await grep(ws.session, { pattern: "x", path: ws.path("missing") }, reg)).error?.code,
      "not_found",
    );
  }
  const rgBad = await grep(ws.session, { pattern: "a(b" });
  assert.match(rgBad.text, /ripgrep says: regex parse error:[\s\S]*unclosed group/);
});

Deno.test("Grep never runs a pattern or glob through a shell", async () => {
  await using ws = await tempWorkspace();
  await buildFixture(ws);
  const bad = [
    "$(touch pwned1)",
    "`touch pwned2`",
    "x; touch pwned3",
    "x && touch pwned4 #",
    "x' ; rm -rf src ; '",
  ];
  for (const [, reg] of ENGINES) {
    for (const pattern of bad) {
      const r = await grep(ws.session, { pattern, glob: pattern }, reg);
      assert.ok(r.ok || r.error?.code === "invalid_input", r.text);
    }
  }
  for (let i = 1; i <= 4; i++) {
    assert.ok(!(await exists(ws.path(`pwned${i}`))));
    assert.ok(!(await exists(`${Deno.cwd()}/pwned${i}`)));
  }
  assert.ok(await exists(ws.path("src/app.ts")));
});

Deno.test("Grep declares its rg binary for the Deno flag computation", () => {
  assert.deepEqual(createGrepTool().programs, [RG]);
  assert.deepEqual(createGrepTool({ engine: "in-process" }).programs, []);
});

Deno.test("Grep stops at its budgets with a partial result and a note", async () => {
  await using ws = await tempWorkspace();
  await ws.write("big/huge.txt", "match me\n".repeat(3_000_000));
  for (let i = 0; i < 50; i++) await ws.write(`many/f${i}.txt`, "match me\n".repeat(100));
  const timed = new ToolRegistry([createGrepTool({ timeBudgetMs: 1 })]);
  const r = await grep(
    ws.session,
    { pattern: "match", path: ws.path("big/huge.txt"), output_mode: "count" },
    timed,
  );
  assert.ok(r.ok, r.text);
  assert.equal(r.data.partial, "time_budget");
  assert.match(r.text, /stopped at its time budget \(1 ms\)/);
  const opts: SearchToolOptions = { engine: "in-process", timeBudgetMs: 0 };
  const jsTimed = await grep(
    ws.session,
    { pattern: "match", path: ws.path("many") },
    new ToolRegistry([createGrepTool(opts)]),
  );
  assert.equal(jsTimed.data.partial, "time_budget");
  for (const engine of ["auto", "in-process"] as const) {
    const capped = new ToolRegistry([createGrepTool({ matchBudget: 100, engine })]);
    const c = await grep(ws.session, { pattern: "match", output_mode: "content", head_limit: 0 }, capped);
    assert.equal(c.data.entries.length, 100, engine);
    assert.equal(c.data.partial, "match_budget");
    assert.match(c.text, /stopped at 100 lines/);
  }
});

Deno.test("Grep falls back in process when rg may not run, and says so", async () => {
  await using ws = await tempWorkspace();
  await buildFixture(ws);
  const child = fileURLToPath(new URL("./_grep_child.ts", import.meta.url));
  const input = JSON.stringify({ pattern: "TODO", output_mode: "count" });
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["run", "--no-prompt", `--allow-read=${ws.dir}`, child, ws.dir, input],
    stdout: "piped",
    stderr: "piped",
  }).output();
  const stderr = new TextDecoder().decode(out.stderr);
  assert.ok(out.success, stderr);
  const result = JSON.parse(new TextDecoder().decode(out.stdout));
  assert.ok(result.ok, result.text);
  assert.equal(result.data.engine, "in-process");
  assert.match(
    result.text,
    /ripgrep may not run here \(--allow-run for ".*" is not granted\), so the search ran in process/,
  );
  const expected = await rawRg(ws.dir, rgFlags({ pattern: "TODO" }, "count"));
  assert.deepEqual([...result.data.entries].sort(), expected.sort());
});

async function exists(path: string): Promise<boolean> {
  try {
    await Deno.lstat(path);
    return true;
  } catch {
    return false;
  }
}

/** Child processes of this test process (any state, zombies included). */
function ourChildren(): string[] {
  const out: string[] = [];
  for (const e of Deno.readDirSync("/proc")) {
    if (!/^\d+$/.test(e.name)) continue;
    let stat: string;
    try {
      stat = Deno.readTextFileSync(`/proc/${e.name}/stat`);
    } catch {
      continue; // gone meanwhile
    }
    const close = stat.lastIndexOf(")");
    const ppid = Number(stat.slice(close + 2).split(" ")[1]);
    if (ppid === Deno.pid) out.push(`${e.name} ${stat.slice(stat.indexOf("(") + 1, close)}`);
  }
  return out;
}

/** Waits (at most 10 s) until this process has no child left; returns the ones that stayed. */
async function childrenAfterSettling(): Promise<string[]> {
  for (let i = 0; i < 200 && ourChildren().length > 0; i++) await new Promise((r) => setTimeout(r, 50));
  return ourChildren();
}

Deno.test({
  name: "Grep kills and reaps rg when it stops early: page, match budget, time budget, abort",
  ignore: Deno.build.os !== "linux",
  fn: async () => {
    await using ws = await tempWorkspace();
    for (let i = 0; i < 20; i++) await ws.write(`many/f${i}.txt`, "match me\n".repeat(5000));
    // stand-ins for rg that never end by themselves: endless output, and silence
    await ws.write("bin/flood", '#!/bin/sh\nwhile :; do echo "many/f0.txt:1:match me"; done\n');
    await ws.write("bin/silent", "#!/bin/sh\nexec /bin/sleep 60\n");
    await Deno.chmod(ws.path("bin/flood"), 0o755);
    await Deno.chmod(ws.path("bin/silent"), 0o755);
    // an earlier test's child can still be on its way out (a zombie until reaped)
    assert.deepEqual(await childrenAfterSettling(), []);
    const content = { pattern: "match", output_mode: "content", path: ws.path("many") };
    const real = new ToolRegistry([createGrepTool({ engine: "ripgrep" })]);
    const paged = await grep(ws.session, { ...content, head_limit: 3 }, real);
    assert.equal(paged.data.engine, "ripgrep");
    assert.equal(paged.data.appliedLimit, 3);
    const flood = (o: SearchToolOptions) =>
      new ToolRegistry([createGrepTool({ engine: "ripgrep", rgPath: ws.path("bin/flood"), ...o })]);
    const silent = (o: SearchToolOptions) =>
      new ToolRegistry([createGrepTool({ engine: "ripgrep", rgPath: ws.path("bin/silent"), ...o })]);
    const page = await grep(ws.session, { ...content, head_limit: 2 }, flood({}));
    assert.deepEqual(page.data.entries, ["many/f0.txt:1:match me", "many/f0.txt:1:match me"]);
    const budget = await grep(ws.session, { ...content, head_limit: 0 }, flood({ matchBudget: 50 }));
    assert.equal(budget.data.partial, "match_budget");
    const timed = await grep(ws.session, content, silent({ timeBudgetMs: 200 }));
    assert.equal(timed.data.partial, "time_budget");
    assert.equal(await childrenAfterSettling().then((c) => c.join()), "");
    for (const reg of [silent({}), flood({ matchBudget: 10_000_000 })]) {
      const controller = new AbortController();
      const call = runTool(reg, { name: "Grep", input: { ...content, head_limit: 0 } }, {
        session: ws.session,
        signal: controller.signal,
      });
      while (ourChildren().length === 0) await new Promise((r) => setTimeout(r, 10));
      controller.abort();
      assert.equal((await call).error?.code, "aborted");
      assert.equal(await childrenAfterSettling().then((c) => c.join()), "");
    }
  },
});

Deno.test("Grep returns 250 entries by default and says how to get the rest", async () => {
  await using ws = await tempWorkspace();
  for (let i = 0; i < 260; i++) await ws.write(`f/n${String(i).padStart(3, "0")}.txt`, "needle\n");
  for (const [engine, reg] of ENGINES) {
    const files = await grep(ws.session, { pattern: "needle" }, reg);
    assert.equal(files.data.entries.length, 250, engine);
    assert.equal(files.data.appliedLimit, 250);
    assert.match(files.text, /^Found 260 files\n/);
    assert.match(files.text, /Showing entries 1-250 of 260: use offset=250 for more/);
    const lines = await grep(ws.session, { pattern: "needle", output_mode: "content" }, reg);
    assert.equal(lines.data.entries.length, 250, engine);
    assert.match(lines.text, /use offset=250 for more/);
    const rest = await grep(ws.session, { pattern: "needle", output_mode: "content", offset: 250 }, reg);
    assert.equal(rest.data.entries.length, 10, engine);
    assert.equal(rest.data.appliedLimit, undefined);
  }
});

Deno.test("Grep shortens long lines as rg does: over 500 bytes, cut at 500 graphemes", async () => {
  await using ws = await tempWorkspace();
  await ws.write(
    "wide.txt",
    [
      `x${"é".repeat(300)}`, // 301 characters, 601 bytes: whole line plus the marker
      `${"y".repeat(499)}éz`, // 501 characters: cut after é
      `${"😀".repeat(10)}${"x".repeat(495)}`, // astral characters count once
      `${"e\u0301".repeat(260)}x`, // combining marks: 261 graphemes, whole
      `${"x".repeat(200)}`, // short
    ].join("\n") + "\n",
  );
  const expected = await rawRg(ws.dir, rgFlags({ pattern: "x|z" }, "content"));
  assert.equal(expected.length, 5);
  for (const [engine, reg] of ENGINES) {
    const r = await grep(ws.session, { pattern: "x|z", output_mode: "content" }, reg);
    assert.deepEqual(r.data.entries, expected, engine);
  }
});

Deno.test("Grep skips binary files on both engines, wherever the NUL byte is", async () => {
  await using ws = await tempWorkspace();
  const bytes = (s: string) => new TextEncoder().encode(s);
  await ws.write("text.txt", "a needle\n");
  await Deno.writeFile(ws.path("early.bin"), bytes("needle\0 here\n"));
  // past the first 8 KB, where the in-process engine checks the decoded text instead of the bytes
  await Deno.writeFile(ws.path("late.txt"), bytes(`needle here\n${"x".repeat(20_000)}\n\0\nneedle after\n`));
  await Deno.writeFile(ws.path("late.bin"), bytes(`${"é".repeat(10_000)}\0needle\n`));
  const rgOnly = new ToolRegistry([createGrepTool({ engine: "ripgrep" })]);
  const expected = await rawRg(ws.dir, ["-l", "needle"]);
  assert.deepEqual(expected, ["text.txt"]);
  for (const [name, reg] of [["ripgrep", rgOnly], ["in-process", inProcess]] as const) {
    for (const output_mode of ["files_with_matches", "content", "count"]) {
      const r = await grep(ws.session, { pattern: "needle", output_mode }, reg);
      assert.ok(r.ok, r.text);
      assert.ok(r.text.includes("text.txt"), `${name} ${output_mode}`);
      assert.ok(!/early|late/.test(r.text), `${name} ${output_mode}: ${r.text}`);
    }
  }
});

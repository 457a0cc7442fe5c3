/**
 * THREATS.md P9: nothing is lost or left behind. Output files are private to
 * the user (0700 folders, 0600 files) in a per-user folder that another user
 * cannot pre-empt or redirect, capped in size, and removed with the session
 * unless the user chose the folder; temp files a killed atomic write left are
 * cleaned when the next runtime starts.
 */
import assert from "node:assert/strict";
import { basename, join } from "node:path";
import { cleanStaleTemps } from "../../src/files/atomic_write.ts";
import { createRuntime } from "../../src/runtime/runtime.ts";
import { defaultOutputRoot, makeSessionOutputDir } from "../../src/session/output_root.ts";
import { Session } from "../../src/session/session.ts";
import { MAX_FILE_BYTES } from "../../src/tasks/output_sink.ts";
import { CONFIG, DENO, waitUntil } from "../_helpers/groups.ts";
import { tempWorkspace } from "../_helpers/workspace.ts";
import { IS_ROOT, tempDir } from "./_sandboxed.ts";

const NOBODY = 65534;

function mode(path: string): number {
  return Deno.lstatSync(path).mode! & 0o777;
}

/**
 * Runs `fn` with the output base pointing at `base`, through XDG_RUNTIME_DIR (which Paddock
 * prefers): test modules run in parallel in one process, so changing TMPDIR would send other
 * modules' temp folders into `base`, removed under them when this test ends.
 */
async function withBase<T>(base: string, fn: () => Promise<T>): Promise<T> {
  const saved = { XDG_RUNTIME_DIR: Deno.env.get("XDG_RUNTIME_DIR") };
  Deno.env.set("XDG_RUNTIME_DIR", base);
  try {
    return await fn();
  } finally {
    for (const [k, v] of Object.entries(saved)) v === undefined ? Deno.env.delete(k) : Deno.env.set(k, v);
  }
}

Deno.test("P9 private outputs: the per-user and session folders are 0700, every output file 0600", async () => {
  await using base = await tempDir();
  await using ws = await tempWorkspace();
  await withBase(base.path, async () => {
    await using rt = createRuntime({ roots: [ws.dir], mode: "bypassPermissions", excludeTools: ["Agent"] });
    const root = defaultOutputRoot();
    assert.equal(root, join(base.path, `paddock-${Deno.uid()}`));
    const spilled = await rt.run("Bash", { command: "seq 1 30000" }); // the runner's full-output file
    assert.ok(spilled.truncated, spilled.text);
    const task = await rt.run("Bash", { command: "echo log", run_in_background: true }); // a task log
    const log = (task.data as { outputPath: string }).outputPath;
    const big = await rt.run("Bash", { command: "yes | head -c 3000000" }); // the Bash spill file
    const files = [spilled.truncated!.fullOutputPath, log, (big.data as { outputPath: string }).outputPath];
    const dir = rt.session.outputDir();
    assert.equal(dir, join(root, rt.session.id));
    assert.equal(mode(root), 0o700);
    assert.equal(mode(dir), 0o700);
    for (const file of files) {
      assert.ok(file.startsWith(`${dir}/`), file);
      assert.equal(mode(file), 0o600, file);
    }
  });
});

Deno.test({
  name:
    "P9 pre-empted folder: another user's folder of our name, or a planted link, is refused for a fresh private one",
  ignore: !IS_ROOT,
  fn: async () => {
    await using base = await tempDir();
    const ours = join(base.path, `paddock-${Deno.uid()}`);
    // the old shared name, made by someone else: irrelevant now
    Deno.mkdirSync(join(base.path, "paddock"), { mode: 0o777 });
    Deno.chownSync(join(base.path, "paddock"), NOBODY, NOBODY);
    // our own name, made first by another user, open to all
    Deno.mkdirSync(ours, { mode: 0o777 });
    Deno.chmodSync(ours, 0o777);
    Deno.chownSync(ours, NOBODY, NOBODY);
    const made = makeSessionOutputDir("s1", base.path);
    assert.match(made.refused ?? "", /belongs to uid 65534/);
    assert.ok(!made.dir.startsWith(`${ours}/`), made.dir);
    assert.equal(Deno.lstatSync(made.dir).uid, Deno.uid());
    assert.equal(mode(made.dir), 0o700);
    assert.deepEqual([...Deno.readDirSync(ours)], [], "nothing was written into the other user's folder");
    // a symbolic link in its place, pointing at a folder the attacker reads
    Deno.removeSync(ours);
    const trap = join(base.path, "trap");
    Deno.mkdirSync(trap);
    Deno.symlinkSync(trap, ours);
    await withBase(base.path, async () => {
      await using session = new Session({ roots: [base.path] });
      const warnings: string[] = [];
      session.on((e) => e.type === "warning" && warnings.push(e.message));
      const file = session.outputPath("x.log");
      assert.ok(!file.startsWith(`${ours}/`), file);
      assert.match(warnings.join("\n"), /is a symbolic link/);
    });
    assert.deepEqual([...Deno.readDirSync(trap)], [], "nothing went through the link");
  },
});

Deno.test("P9 our own folder with a wider mode is narrowed to 0700 before use", async () => {
  await using base = await tempDir();
  const ours = join(base.path, `paddock-${Deno.uid()}`);
  Deno.mkdirSync(ours);
  Deno.chmodSync(ours, 0o755);
  const made = makeSessionOutputDir("s1", base.path);
  assert.equal(made.refused, undefined);
  assert.equal(mode(ours), 0o700);
});

Deno.test("P9 output bomb: `yes` for seconds gives a file capped at 64 MiB that says the rest was cut, and TaskOutput says so", async () => {
  await using ws = await tempWorkspace();
  await using rt = createRuntime({
    roots: [ws.dir],
    outputDir: ws.session.outputDir(),
    mode: "bypassPermissions",
    excludeTools: ["Agent"],
  });
  const started = await rt.run("Bash", { command: "timeout 3 yes", run_in_background: true });
  const { taskId, outputPath } = started.data as { taskId: string; outputPath: string };
  const r = await rt.run("TaskOutput", { task_id: taskId, timeout: 60_000 });
  assert.match(
    r.text,
    /output file reached its limit of 67108864 bytes \(64 MiB\): the rest of the output was cut/,
  );
  const size = Deno.statSync(outputPath).size;
  assert.ok(size <= MAX_FILE_BYTES + 200, `${size} bytes`);
  const file = await Deno.open(outputPath);
  await file.seek(-120, Deno.SeekMode.End);
  const end = new Uint8Array(120);
  await file.read(end);
  file.close();
  assert.match(
    new TextDecoder().decode(end),
    /output file limit of 67108864 bytes reached: the rest of the output was cut/,
  );
});

Deno.test("P9 session close removes its own output folder, and keeps one the user gave", async () => {
  await using base = await tempDir();
  await withBase(base.path, async () => {
    const session = new Session({ roots: [base.path] });
    const file = session.outputPath("a.log");
    Deno.writeTextFileSync(file, "x");
    const dir = session.outputDir();
    await session.close();
    assert.throws(() => Deno.lstatSync(dir), Deno.errors.NotFound);
    assert.equal(mode(defaultOutputRoot()), 0o700, "the per-user folder stays for other sessions");
    const chosen = join(base.path, "mine");
    const kept = new Session({ roots: [base.path], outputDir: chosen });
    Deno.writeTextFileSync(kept.outputPath("b.log"), "y");
    await kept.close();
    assert.equal(Deno.readTextFileSync(join(chosen, "b.log")), "y");
  });
});

/** A pid that no process has now (a process that has exited). */
async function deadPid(): Promise<number> {
  const child = new Deno.Command("true").spawn();
  await child.status;
  return child.pid;
}

Deno.test("P9 stale temp files: only our old temp files listed by a dead writer go, never through a link", async () => {
  await using base = await tempDir();
  await using ws = await tempWorkspace();
  const root = defaultOutputRoot(base.path);
  Deno.mkdirSync(join(root, "writes"), { recursive: true, mode: 0o700 });
  const old = Date.now() / 1000 - 120;
  const stale = ws.path(".a.txt.0badc0de.paddock-tmp");
  const fresh = ws.path(".b.txt.feedf00d.paddock-tmp");
  const foreign = ws.path("notes.txt");
  const target = ws.path("precious.txt");
  const link = ws.path(".c.txt.12345678.paddock-tmp");
  for (const f of [stale, fresh, foreign, target]) Deno.writeTextFileSync(f, "data");
  Deno.symlinkSync(target, link);
  for (const f of [stale, foreign, target]) Deno.utimeSync(f, old, old);
  const journal = join(root, "writes", `${await deadPid()}-1.list`);
  Deno.writeTextFileSync(
    journal,
    [stale, fresh, foreign, link, "relative/.x.12345678.paddock-tmp"].join("\n") + "\n",
  );
  const report = cleanStaleTemps({ base: base.path });
  assert.deepEqual(report.removed, [stale]);
  assert.ok(Deno.lstatSync(fresh).isFile, "a temp file younger than a minute may be a live write's");
  assert.equal(Deno.readTextFileSync(foreign), "data", "not our temp-name pattern");
  assert.ok(Deno.lstatSync(link).isSymlink, "a link is neither followed nor removed");
  assert.equal(Deno.readTextFileSync(target), "data");
  assert.equal(Deno.readTextFileSync(journal), `${fresh}\n`, "the journal keeps what may still go");
});

Deno.test("P9 stale temp files: the temp file of a write killed mid-way is cleaned when the next runtime starts", async () => {
  await using base = await tempDir();
  await using ws = await tempWorkspace();
  const script = ws.path("..", `${basename(ws.dir)}-writer.ts`);
  const module = new URL("../../src/files/atomic_write.ts", import.meta.url).href;
  Deno.writeTextFileSync(
    script,
    `import { atomicWriteFile } from "${module}";\n` +
      `await atomicWriteFile(Deno.args[0], new Uint8Array(400 * 1024 * 1024).fill(65));\n`,
  );
  try {
    let temp: string | undefined;
    for (let attempt = 0; attempt < 3 && !temp; attempt++) {
      const child = new Deno.Command(DENO, {
        args: ["run", "-A", "--config", CONFIG, script, ws.path("big.bin")],
        env: { TMPDIR: base.path, XDG_RUNTIME_DIR: "" },
        stdout: "null",
        stderr: "null",
      }).spawn();
      const find = () => [...Deno.readDirSync(ws.dir)].find((e) => e.name.endsWith(".paddock-tmp"))?.name;
      await waitUntil(() => find() !== undefined, 20_000);
      child.kill("SIGKILL");
      await child.status;
      const name = find();
      if (name) temp = ws.path(name);
    }
    assert.ok(temp, "no kill landed inside a write");
    const old = Date.now() / 1000 - 120; // a minute has passed since the crash
    Deno.utimeSync(temp, old, old);
    await withBase(base.path, async () => {
      await using rt = createRuntime({ roots: [ws.dir], outputDir: ws.session.outputDir(), tools: [] });
      assert.equal(rt.registry.names().length, 0);
    });
    assert.throws(() => Deno.lstatSync(temp!), Deno.errors.NotFound);
    assert.deepEqual([...Deno.readDirSync(join(defaultOutputRoot(base.path), "writes"))], []);
  } finally {
    Deno.removeSync(script);
  }
});

Deno.test("P9 a crashed run's session folder is removed at the next start, a live run's is kept", async () => {
  await using base = await tempDir();
  await using ws = await tempWorkspace();
  const session = new URL("../../src/session/session.ts", import.meta.url).href;
  // a run that makes its output folder, writes a spill file and dies by SIGKILL (no close, no cleanup)
  const script = `import { Session } from "${session}";
const s = new Session({ roots: [${JSON.stringify(ws.dir)}] });
Deno.writeTextFileSync(s.outputPath("spill.txt"), "x");
console.log(s.outputDir());
Deno.kill(Deno.pid, "SIGKILL");`;
  const out = await new Deno.Command(DENO, {
    args: ["eval", "--config", CONFIG, script],
    env: { TMPDIR: base.path, XDG_RUNTIME_DIR: base.path },
    stdout: "piped",
    stderr: "null",
  }).output();
  const crashed = new TextDecoder().decode(out.stdout).trim();
  assert.ok(crashed.startsWith(base.path) && Deno.statSync(crashed).isDirectory, crashed);
  await withBase(base.path, async () => {
    await using live = new Session({ roots: [ws.dir] });
    const kept = live.outputDir();
    await using rt = createRuntime({ roots: [ws.dir], sandbox: false, tools: [] });
    assert.ok(rt);
    await assert.rejects(Deno.stat(crashed), Deno.errors.NotFound, "the crashed run's folder is gone");
    assert.ok(Deno.statSync(kept).isDirectory, "this process's own session folder stays");
  });
});

import assert from "node:assert/strict";
import { fileURLToPath } from "node:url";
import { runTool } from "../../src/tool/run_tool.ts";
import { ToolRegistry } from "../../src/tool/registry.ts";
import { Session } from "../../src/session/session.ts";
import { createGlobTool, type GlobResult } from "../../src/tools/glob.ts";
import { FileIndex, WalkTrail } from "../../src/search/file_index.ts";
import { sessionIndex } from "../../src/search/options.ts";
import {
  type CheckHelper,
  checkListings,
  searchWorkerFiles,
  SHARE_STAT_FROM,
  sharedWalk,
  shareMtimes,
  startWalkHelper,
  stopWalkHelper,
} from "../../src/search/walk_helper.ts";
import { pastRacyWindow, tempWorkspace } from "../_helpers/workspace.ts";
import { buildTree, withHelper } from "../_helpers/search_tree.ts";

const shared = new ToolRegistry([createGlobTool({ globLimit: 1_000_000 })]);
const solo = new ToolRegistry([createGlobTool({ globLimit: 1_000_000, shareWalks: false })]);

async function glob(
  root: string,
  pattern: string,
  reg: ToolRegistry,
  session?: Session,
): Promise<GlobResult> {
  const r = await runTool(reg, { name: "Glob", input: { pattern, path: root } }, {
    session: session ?? new Session({ roots: [root] }),
  });
  assert.ok(r.ok, r.text);
  return r.data as GlobResult;
}

const PATTERNS = ["**/*.ts", "**/*", "p1*/**/*.ts", "**/m1/*.ts", "p3/m2/*", "**/*.log"];

Deno.test("A walk shared with the helper thread finds exactly what a one-thread walk finds", async () => {
  await using ws = await tempWorkspace();
  const root = await buildTree(ws);
  await withHelper(async (helper) => {
    assert.ok(helper.ready);
    let tookPart = false;
    for (let attempt = 0; attempt < 5 && !tookPart; attempt++) {
      for (const pattern of PATTERNS) {
        const before = helper.foldersWalked;
        const a = await glob(root, pattern, shared);
        tookPart ||= helper.foldersWalked > before;
        const b = await glob(root, pattern, solo);
        assert.deepEqual(a.filenames, b.filenames, pattern);
        assert.equal(a.numFiles, b.numFiles, pattern);
      }
    }
    // the race for subtrees is real, but in five rounds the idle helper takes some
    assert.ok(tookPart, "the helper walked some folders");
    const all = await glob(root, "**/*.ts", solo);
    const rel = all.filenames.map((f) => f.slice(root.length + 1));
    assert.ok(rel.includes(".cfg/hidden.ts") && !rel.some((f) => f.startsWith("node_modules/")));
    assert.ok(
      !rel.includes("p0/m0/build/out.ts") && !rel.includes("p11/m0/a3.ts") && rel.includes("p1/m0/a3.ts"),
    );
  });
});

Deno.test("After a shared first walk the warm index is never stale", async () => {
  await using ws = await tempWorkspace();
  const root = await buildTree(ws);
  await withHelper(async () => {
    const session = new Session({ roots: [root] });
    const first = await glob(root, "**/*.ts", shared, session);
    // change folders all over the tree: whichever thread read them, the next call sees it
    for (let p = 0; p < 90; p += 3) {
      await ws.write(`tree/p${p}/m0/new.ts`, "x");
      await Deno.remove(ws.path(`tree/p${p}/m1/a0.ts`));
      await Deno.rename(ws.path(`tree/p${p}/m2/a1.ts`), ws.path(`tree/p${p}/m2/moved.ts`));
    }
    await ws.write("tree/p5/.gitignore", "a2.ts\n");
    const warm = await glob(root, "**/*.ts", shared, session);
    const fresh = await glob(root, "**/*.ts", solo);
    assert.deepEqual(warm.filenames, fresh.filenames);
    assert.equal(warm.numFiles, first.numFiles + 30 - 30 - 3); // +new, -removed, renamed stays, p5's a2.ts ×3 ignored
  });
});

Deno.test("Glob's memory of a shared first walk covers the folders the helper read", async () => {
  await using ws = await tempWorkspace();
  const root = await buildTree(ws);
  await withHelper(async (helper) => {
    await pastRacyWindow();
    let session = new Session({ roots: [root] });
    for (let attempt = 0; attempt < 5; attempt++) {
      session = new Session({ roots: [root] });
      const before = helper.foldersWalked;
      await glob(root, "**/*.ts", shared, session);
      if (helper.foldersWalked > before) break;
    }
    const index = sessionIndex(session);
    const answer = async () => (await glob(root, "**/*.ts", shared, session)).filenames;
    const truth = async () => (await glob(root, "**/*.ts", solo)).filenames;
    // one folder at a time, all over the tree: whichever thread read it, a change there is seen at once
    for (let p = 0; p < 90; p += 18) {
      await pastRacyWindow();
      await answer(); // refreshes the memory past the last change
      const recalled = index.recalled;
      const before = await answer();
      assert.equal(index.recalled, recalled + 1, "answered from memory");
      await ws.write(`tree/p${p}/m${p % 3}/late.ts`, "x");
      const after = await answer();
      assert.deepEqual(after, await truth(), `p${p}`);
      assert.equal(after.length, before.length + 1);
    }
  });
});

/** Walks `root` (past the racy window of the last change) into a trail on `index`, remembered under "k". */
async function remembered(index: FileIndex, root: string): Promise<WalkTrail> {
  await pastRacyWindow();
  const trail = new WalkTrail();
  assert.ok(index.walk(root, { trail, onFile: () => {} }));
  index.remember("k", root, trail, "answer");
  return trail;
}

Deno.test("A warm check shared with the helper sees a change in any folder, whichever thread checks it", async () => {
  await using ws = await tempWorkspace();
  const root = await buildTree(ws);
  await withHelper(async (helper) => {
    const index = new FileIndex();
    const trail = await remembered(index, root);
    assert.ok(trail.dirs.length >= 256, `${trail.dirs.length} folders: enough to share`);
    // the race for chunks is real: the helper may wake after this thread took them all, so retry, letting it settle
    for (let attempt = 0; attempt < 20 && helper.chunksChecked === 0; attempt++) {
      assert.equal(index.recall("k", root, checkListings(helper)).hit, true);
      await new Promise((r) => setTimeout(r, 10));
    }
    assert.ok(helper.chunksChecked > 0, "the helper checked some folders");
    // the first folder, one in the middle, the last: a new file in any of them is a miss
    const n = trail.dirs.length;
    for (const at of [0, n >> 1, n - 1]) {
      const dir = trail.dirs[at];
      await Deno.writeTextFile(`${dir}/late.ts`, "x");
      const missed = index.recall("k", root, checkListings(helper));
      assert.equal(missed.hit, false, dir);
      assert.ok(!missed.hit && !missed.fresh.has(trail.nodes[at]!), "a changed listing is not fresh");
      await remembered(index, root);
    }
    // an ignore file edited in place changes no folder, and is still seen
    const ignoreFile = ws.path("tree/p7/.gitignore");
    assert.ok(trail.dirs.includes(ws.path("tree/p7")));
    await Deno.writeTextFile(ignoreFile, "*.ts\n");
    assert.equal(index.recall("k", root, checkListings(helper)).hit, false);
  });
});

Deno.test("A warm walk for a new pattern, its folders checked ahead on both threads, sees every change", async () => {
  await using ws = await tempWorkspace();
  const root = await buildTree(ws);
  await withHelper(async (helper) => {
    const session = new Session({ roots: [root] });
    await glob(root, "**/*.ts", shared, session);
    await pastRacyWindow();
    await glob(root, "**/*.js", shared, session); // the listings read again past the window are trusted
    for (let p = 0; p < 90; p += 4) {
      await ws.write(`tree/p${p}/m2/new.ts`, "x");
      await Deno.remove(ws.path(`tree/p${p}/m0/a1.ts`));
      await Deno.rename(ws.path(`tree/p${p}/m1/a2.ts`), ws.path(`tree/p${p}/m1/moved.ts`));
    }
    const before = helper.chunksChecked;
    for (const pattern of ["**/{*.ts,none}", "p*/**/*.ts", "**/m1/*"]) {
      const warm = await glob(root, pattern, shared, session);
      assert.deepEqual(warm.filenames, (await glob(root, pattern, solo)).filenames, pattern);
    }
    // the race for chunks is real, but in a few more walks the idle helper takes some
    for (let n = 0; n < 20 && helper.chunksChecked === before; n++) {
      await glob(root, `**/{*.ts,none${n}}`, shared, session);
      await new Promise((r) => setTimeout(r, 10));
    }
    assert.ok(helper.chunksChecked > before, "the helper checked folders ahead of the walks");
  });
});

Deno.test("A helper that claims folders and never checks them delays a warm check but hides no change", async () => {
  await using ws = await tempWorkspace();
  const root = await buildTree(ws);
  // it takes the first chunk of every check and then does nothing
  const stuck: CheckHelper = {
    ready: true,
    chunksChecked: 0,
    postCheck(job) {
      const ctrl = new Int32Array(job.ctrl);
      Atomics.add(ctrl, 0, 1);
      Atomics.add(ctrl, 1, 1);
    },
  };
  const index = new FileIndex();
  const trail = await remembered(index, root);
  assert.equal(index.recall("k", root, checkListings(stuck)).hit, true);
  const dir = trail.dirs[5]; // in the chunk the helper took
  await Deno.writeTextFile(`${dir}/late.ts`, "x");
  const missed = index.recall("k", root, checkListings(stuck));
  assert.equal(missed.hit, false);
  assert.ok(!missed.hit && missed.fresh.has(trail.nodes[4]!) && !missed.fresh.has(trail.nodes[5]!));
});

Deno.test("The trail of a shared walk names every folder it read, on either thread", async () => {
  await using ws = await tempWorkspace();
  const root = await buildTree(ws);
  await withHelper(async (helper) => {
    const trails: WalkTrail[] = [];
    const warmed = new FileIndex();
    // one thread; shared with the helper; and again on the now warm index, from a prefix
    for (
      const [share, index, prefix] of [[false, new FileIndex(), ""], [true, warmed, ""], [
        true,
        warmed,
        "p1",
      ]] as const
    ) {
      const trail = new WalkTrail();
      const before = helper.foldersWalked;
      await sharedWalk(index, root, {
        pattern: `${prefix ? `${prefix}/` : ""}**/*.ts`,
        prefix,
        match: { test: (_relDir, name) => name.endsWith(".ts") },
        helper: share ? helper : null,
        trail,
        onFile() {
          if (!share) return;
          const until = performance.now() + 0.2; // a slow main thread leaves subtrees to the helper
          while (performance.now() < until);
        },
      });
      assert.equal(helper.foldersWalked > before, share && !prefix);
      trails.push(trail);
    }
    const [solo, both, warm] = trails;
    assert.deepEqual([...both.dirs].sort(), [...solo.dirs].sort());
    for (const t of [both, warm]) assert.equal(new Set(t.dirs).size, t.dirs.length, "each folder once");
    assert.ok(both.nodes.every((n) => n !== undefined));
    assert.deepEqual(
      warm.dirs.map((d) => d.slice(root.length)).filter((d) => !d.startsWith("/p1")),
      [""],
      "the warm walk names the root and what is under p1",
    );
  });
});

Deno.test("A helper that stops mid-walk costs nothing but time: the walk finishes on its own", async () => {
  await using ws = await tempWorkspace();
  const root = await buildTree(ws);
  const want = await glob(root, "**/*", solo);
  for (let round = 0; round < 3; round++) {
    const helper = startWalkHelper()!;
    await helper.whenReady;
    const pending = glob(root, "**/*", shared);
    await stopWalkHelper(); // at once, or after the walk started: either way the result is whole
    assert.deepEqual((await pending).filenames, want.filenames);
  }
});

Deno.test("An abort stops a shared walk, and the helper serves the next one", async () => {
  await using ws = await tempWorkspace();
  const root = await buildTree(ws);
  await withHelper(async (helper) => {
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 0);
    const found: string[] = [];
    const done = await sharedWalk(new FileIndex(), root, {
      pattern: "**/*",
      signal: controller.signal,
      sliceMs: 0,
      onFile: (relDir, name) => void found.push(`${relDir}/${name}`),
    });
    assert.equal(done, false);
    const again = await glob(root, "**/*", shared);
    assert.deepEqual(again.filenames, (await glob(root, "**/*", solo)).filenames);
    assert.ok(helper.ready);
  });
});

Deno.test("The helper neither keeps a process alive nor starts without read access to its modules", async () => {
  await using ws = await tempWorkspace();
  const root = await buildTree(ws);
  const child = fileURLToPath(new URL("./_walk_helper_child.ts", import.meta.url));
  const run = async (read: string[]) => {
    const out = await new Deno.Command(Deno.execPath(), {
      args: [
        "run",
        "--no-prompt",
        `--allow-read=${[ws.dir, child, ...read].join(",")}`,
        `--allow-write=${ws.path("out")}`,
        child,
        root,
        ws.path("out"),
      ],
      stdout: "piped",
      stderr: "piped",
      signal: AbortSignal.timeout(30_000), // a process kept alive by the thread would hang here
    }).output();
    const stderr = new TextDecoder().decode(out.stderr);
    assert.ok(out.success, stderr);
    assert.equal(stderr, ""); // no uncaught error from a worker that could not load
    return JSON.parse(new TextDecoder().decode(out.stdout));
  };
  const granted = await run(searchWorkerFiles());
  assert.equal(granted.started, true);
  assert.ok(granted.numFiles > 1000);
  const denied = await run([]);
  assert.equal(denied.started, false);
  assert.equal(denied.numFiles, granted.numFiles);
});

Deno.test("Stats shared with the helper give every path its mtime, 0 for one that is gone", async () => {
  await using ws = await tempWorkspace();
  const paths: string[] = [];
  const want: number[] = [];
  for (let i = 0; i < 40; i++) {
    const path = await ws.write(`f${i}.txt`, "x");
    const t = new Date(Date.UTC(2021, 0, 1) + i * 60_000);
    Deno.utimeSync(path, t, t);
    paths.push(path);
    want.push(t.getTime());
  }
  paths.push(ws.path("gone.txt"));
  want.push(0);
  // enough paths for the helper to take some of them
  const many = Array.from({ length: 20_000 }, (_, i) => paths[i % paths.length]);
  const expected = many.map((_, i) => want[i % want.length]);
  await withHelper(async (helper) => {
    assert.equal(shareMtimes(helper)!(paths), undefined, "too few to share: declined");
    const before = helper.chunksChecked;
    for (let n = 0; n < 20 && helper.chunksChecked === before; n++) {
      assert.deepEqual([...shareMtimes(helper)!(many)!], expected);
      await new Promise((r) => setTimeout(r, 10)); // the helper may still be on its last claim
    }
    assert.ok(helper.chunksChecked > before, "the helper statted some chunks");
  });
});

Deno.test("A helper that claims stats and never makes them costs time, not mtimes", async () => {
  await using ws = await tempWorkspace();
  const path = await ws.write("a.txt", "x");
  const t = new Date(Date.UTC(2022, 5, 1));
  Deno.utimeSync(path, t, t);
  const stuck: CheckHelper = {
    ready: true,
    chunksChecked: 0,
    postCheck(job) {
      const ctrl = new Int32Array(job.ctrl);
      Atomics.add(ctrl, 0, 1); // takes the first chunk, then nothing
      Atomics.add(ctrl, 1, 1);
    },
  };
  const times = shareMtimes(stuck)!(Array(SHARE_STAT_FROM).fill(path))!;
  assert.ok(times.every((m) => m === t.getTime()));
  assert.equal(shareMtimes({ ...stuck, ready: false })!(Array(SHARE_STAT_FROM).fill(path)), undefined);
});

Deno.test("A warm call whose matches have no mtime yet stats them with the helper and sorts them right", async () => {
  await using ws = await tempWorkspace();
  const root = await buildTree(ws);
  await withHelper(async () => {
    const session = new Session({ roots: [root] });
    await glob(root, "**/*.js", shared, session); // the .ts files are listed, not statted
    for (const pattern of ["**/*.ts", "**/{*.ts,*.log}", "**/*"]) {
      const warm = await glob(root, pattern, shared, session);
      assert.deepEqual(warm.filenames, (await glob(root, pattern, solo)).filenames, pattern);
    }
  });
});

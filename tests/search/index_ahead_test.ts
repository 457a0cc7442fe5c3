import assert from "node:assert/strict";
import { runTool } from "../../src/tool/run_tool.ts";
import { ToolRegistry } from "../../src/tool/registry.ts";
import { Session } from "../../src/session/session.ts";
import { createRuntime } from "../../src/runtime/runtime.ts";
import { createGlobTool, type GlobResult } from "../../src/tools/glob.ts";
import { createGrepTool } from "../../src/tools/grep/grep.ts";
import { holdIndexAhead, indexAhead } from "../../src/search/index_ahead.ts";
import { sessionIndex } from "../../src/search/options.ts";
import { buildTree, withHelper } from "../_helpers/search_tree.ts";
import { pastRacyWindow, tempWorkspace } from "../_helpers/workspace.ts";

const registry = new ToolRegistry([createGlobTool({ globLimit: 1_000_000 })]);
const solo = new ToolRegistry([createGlobTool({ globLimit: 1_000_000, shareWalks: false })]);

async function glob(root: string, pattern: string, session: Session, reg = registry): Promise<GlobResult> {
  const r = await runTool(reg, { name: "Glob", input: { pattern, path: root } }, { session });
  assert.ok(r.ok, r.text);
  return r.data as GlobResult;
}

Deno.test("A workspace indexed ahead serves Glob's first call without reading a folder", async () => {
  await using ws = await tempWorkspace();
  const root = await buildTree(ws);
  await withHelper(async (helper) => {
    await pastRacyWindow(); // listings read moments after a change are read again
    const session = new Session({ roots: [root] });
    const before = helper.foldersWalked;
    const ahead = indexAhead(session)!;
    assert.equal(ahead.state, "running");
    assert.equal(await ahead.done, true);
    assert.equal(ahead.state, "joined");
    assert.ok(helper.foldersWalked > before, "the helper walked the workspace");
    assert.equal(indexAhead(session), undefined, "one walk ahead per session");
    const index = sessionIndex(session);
    const reads = index.reads;
    for (const pattern of ["**/*.ts", "p1*/**/*", "**/*.log"]) {
      const first = await glob(root, pattern, session);
      assert.deepEqual(
        first.filenames,
        (await glob(root, pattern, new Session({ roots: [root] }), solo)).filenames,
      );
    }
    assert.equal(index.reads, reads, "every folder came from the index");
  });
});

Deno.test("Changes made after the walk ahead show up in Glob's first call", async () => {
  await using ws = await tempWorkspace();
  const root = await buildTree(ws);
  await withHelper(async () => {
    const session = new Session({ roots: [root] });
    assert.equal(await indexAhead(session)!.done, true);
    await pastRacyWindow();
    for (let p = 0; p < 90; p += 5) {
      await ws.write(`tree/p${p}/m0/new.ts`, "x");
      await Deno.remove(ws.path(`tree/p${p}/m1/a0.ts`));
      await Deno.rename(ws.path(`tree/p${p}/m2/a1.ts`), ws.path(`tree/p${p}/m2/moved.ts`));
    }
    await ws.write("tree/p3/.gitignore", "a2.ts\n");
    // rewritten as Write and editors do (a rename over it): the newest file, so it comes first
    await ws.write("tree/p4/m0/a0.ts.tmp", "newer");
    await Deno.rename(ws.path("tree/p4/m0/a0.ts.tmp"), ws.path("tree/p4/m0/a0.ts"));
    const first = await glob(root, "**/*.ts", session);
    const fresh = await glob(root, "**/*.ts", new Session({ roots: [root] }), solo);
    assert.deepEqual(first.filenames, fresh.filenames);
    assert.equal(first.filenames[0], ws.path("tree/p4/m0/a0.ts"));
  });
});

Deno.test("A Glob call before the walk ahead ends drops the walk and walks as it would have", async () => {
  await using ws = await tempWorkspace();
  const root = await buildTree(ws);
  await withHelper(async () => {
    const session = new Session({ roots: [root] });
    const ahead = indexAhead(session)!;
    assert.equal(ahead.state, "running");
    const first = await glob(root, "**/*.ts", session); // at once: the walk is under way
    assert.equal(ahead.state, "dropped");
    assert.equal(await ahead.done, false);
    assert.deepEqual(
      first.filenames,
      (await glob(root, "**/*.ts", new Session({ roots: [root] }), solo)).filenames,
    );
    assert.equal(indexAhead(session), undefined, "none starts once Glob has been called");
  });
});

Deno.test("A walk ahead past its file or folder limit, or in a closed session, leaves the index empty", async () => {
  await using ws = await tempWorkspace();
  const root = await buildTree(ws);
  await withHelper(async () => {
    const capped = new Session({ roots: [root] });
    const ahead = indexAhead(capped, { maxFiles: 100 })!;
    assert.equal(await ahead.done, false);
    assert.equal(ahead.state, "dropped");
    assert.equal(sessionIndex(capped).size, 0);
    const wide = new Session({ roots: [root] }); // 90 package folders of 3 each and more: over 50
    assert.equal(await indexAhead(wide, { maxFolders: 50 })!.done, false);
    assert.equal(sessionIndex(wide).size, 0);
    assert.equal(await indexAhead(new Session({ roots: [root] }), { maxFolders: 10_000 })!.done, true);
    const closed = new Session({ roots: [root] });
    const stopped = indexAhead(closed)!;
    await closed.close();
    assert.equal(stopped.state, "dropped");
    assert.equal(sessionIndex(closed).size, 0);
  });
  assert.equal(indexAhead(new Session({ roots: [root] })), undefined, "no helper, no walk ahead");
});

Deno.test("A runtime made with indexAhead indexes its workspace once the helper is ready", async () => {
  await using ws = await tempWorkspace();
  const root = await buildTree(ws);
  await withHelper(async () => {
    await using rt = createRuntime({ roots: [root], walkHelper: true, indexAhead: true });
    const index = sessionIndex(rt.session);
    for (let n = 0; n < 200 && index.size === 0; n++) await new Promise((r) => setTimeout(r, 25));
    assert.ok(index.size > 270, `the workspace's folders are indexed (${index.size})`);
    const r = await rt.run("Glob", { pattern: "**/*.ts", path: root });
    assert.ok(r.ok, r.text);
  });
  await using plain = createRuntime({ roots: [root], walkHelper: false, indexAhead: true });
  await new Promise((r) => setTimeout(r, 50));
  assert.equal(sessionIndex(plain.session).size, 0, "no helper thread: no walk ahead");
});

Deno.test("A held walk ahead makes no progress until every holder lets go, and can still be stopped", async () => {
  await using ws = await tempWorkspace();
  const root = await buildTree(ws);
  await withHelper(async () => {
    const session = new Session({ roots: [root] });
    const ahead = indexAhead(session)!;
    const release = holdIndexAhead(session);
    const second = holdIndexAhead(session);
    await new Promise((r) => setTimeout(r, 50)); // a part already under way may still come in
    const files = ahead.files;
    await new Promise((r) => setTimeout(r, 200));
    assert.equal(ahead.files, files, "no folder walked while held");
    assert.equal(ahead.state, "running");
    release();
    release(); // a second call changes nothing: the other holder still holds
    await new Promise((r) => setTimeout(r, 100));
    assert.equal(ahead.files, files);
    second();
    assert.equal(await ahead.done, true);
    assert.ok(ahead.files > files);
    // stopped while held: it ends at once, dropped
    const other = new Session({ roots: [root] });
    const held = indexAhead(other)!;
    holdIndexAhead(other);
    await other.close();
    assert.equal(held.state, "dropped");
    assert.equal(sessionIndex(other).size, 0);
  });
});

Deno.test("A Grep call holds the walk ahead while it runs and lets it finish after", async () => {
  await using ws = await tempWorkspace();
  const root = await buildTree(ws);
  const grep = new ToolRegistry([createGrepTool()]);
  await withHelper(async () => {
    const session = new Session({ roots: [root] });
    const ahead = indexAhead(session)!;
    const r = await runTool(
      grep,
      { name: "Grep", input: { pattern: "x", path: root, output_mode: "count" } },
      {
        session,
      },
    );
    assert.ok(r.ok, r.text);
    let timer: ReturnType<typeof setTimeout> | undefined;
    const late = new Promise((r) => timer = setTimeout(() => r("still held"), 10_000));
    const ended = await Promise.race([ahead.done, late]);
    clearTimeout(timer);
    assert.equal(ended, true, "the walk went on once Grep was done");
    assert.equal(holdIndexAhead(session)(), undefined, "nothing to hold once the walk is over");
  });
});

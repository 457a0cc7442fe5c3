import assert from "node:assert/strict";
import { FileIndex, filesOf, WalkTrail } from "../../src/search/file_index.ts";
import { pastRacyWindow, tempWorkspace } from "../_helpers/workspace.ts";

/** Walks `root` from `prefix` into a new trail, as Glob does before remembering. */
function walked(index: FileIndex, root: string, prefix = ""): WalkTrail {
  const trail = new WalkTrail();
  assert.ok(index.walk(root, { prefix, trail, onFile: () => {} }));
  return trail;
}

async function tree(): Promise<AsyncDisposable & { dir: string }> {
  const ws = await tempWorkspace();
  for (const d of ["a/x", "a/y", "b/x", "b/y", "c"]) await ws.write(`${d}/f.txt`, "x");
  await pastRacyWindow();
  return { dir: ws.dir, [Symbol.asyncDispose]: () => ws[Symbol.asyncDispose]() };
}

Deno.test("FileIndex recalls a remembered walk while its folders are unchanged", async () => {
  await using t = await tree();
  const index = new FileIndex();
  const trail = walked(index, t.dir, "a");
  assert.deepEqual(trail.dirs.map((d) => d.slice(t.dir.length)).sort(), ["", "/a", "/a/x", "/a/y"]);
  index.remember("k", t.dir, trail, 42);
  assert.deepEqual(index.recall("k", t.dir), { hit: true, value: 42 });
  assert.equal(index.recall("other", t.dir).hit, false);
  assert.equal(index.recall("k", `${t.dir}/a`).hit, false);
  await Deno.writeTextFile(`${t.dir}/b/x/new.txt`, "x"); // outside the walk: no matter
  assert.equal(index.recall("k", t.dir).hit, true);
  await Deno.writeTextFile(`${t.dir}/a/y/new.txt`, "x");
  const missed = index.recall("k", t.dir);
  assert.equal(missed.hit, false);
  assert.equal(index.recall("k", t.dir).hit, false, "a missed memory is dropped");
  assert.equal(index.recalled, 2);
});

Deno.test("FileIndex forgets the least recently used walks past its limits", async () => {
  await using t = await tree();
  const index = new FileIndex({ memos: 2 });
  for (const k of ["a", "b"]) index.remember(k, t.dir, walked(index, t.dir, k), k);
  assert.equal(index.recall("a", t.dir).hit, true); // a is now the most recently used
  index.remember("c", t.dir, walked(index, t.dir, "c"), "c");
  assert.deepEqual(["a", "b", "c"].map((k) => index.recall(k, t.dir).hit), [true, false, true]);

  // by folders: each of a and b names 4 (the root, the prefix folder, x and y)
  const small = new FileIndex({ memoFolders: 6 });
  for (const k of ["a", "b"]) small.remember(k, t.dir, walked(small, t.dir, k), k);
  assert.deepEqual(["a", "b"].map((k) => small.recall(k, t.dir).hit), [false, true]);
  small.remember("all", t.dir, walked(small, t.dir), "all"); // 8 folders: more than it may hold at all
  assert.equal(small.recall("all", t.dir).hit, false);
  assert.equal(small.recall("b", t.dir).hit, true, "a walk too big to keep evicts nothing");
});

Deno.test("FileIndex reads a dropped folder again and keeps the others", async () => {
  await using t = await tree();
  const index = new FileIndex();
  walked(index, t.dir);
  const reads = index.reads;
  assert.ok(index.peek(`${t.dir}/a/x`) && index.peek(`${t.dir}/b/x`));
  index.drop(`${t.dir}/a/x`);
  assert.equal(index.peek(`${t.dir}/a/x`), undefined);
  walked(index, t.dir);
  assert.equal(index.reads, reads + 1, "only the dropped folder is read again");
  assert.deepEqual(filesOf(index.peek(`${t.dir}/a/x`)!), ["f.txt"]);
});

Deno.test("FileIndex keeps every kind of file name through packing, and only regular files", async () => {
  await using ws = await tempWorkspace();
  const names = [" lead", "b c", "ü-ñ.txt", "new\nline", ".hidden", "back\\slash", "a".repeat(200), "x"];
  for (const n of names) await ws.write(n, "x");
  await Deno.mkdir(ws.path("sub"));
  await Deno.symlink(ws.path("x"), ws.path("link"));
  const node = new FileIndex().node(ws.dir)!;
  assert.equal(node.fileCount, names.length);
  assert.deepEqual(filesOf(node).sort(), [...names].sort());
  assert.deepEqual(node.dirs, ["sub"]);
  const seen: string[] = [];
  assert.ok(
    new FileIndex().walk(ws.dir, { onFile: (rel, name) => void seen.push(rel ? `${rel}/${name}` : name) }),
  );
  assert.deepEqual(seen.sort(), [...names].sort());
  assert.deepEqual(filesOf(new FileIndex().node(ws.path("sub"))!), [], "an empty folder has no names");
});

Deno.test("FileIndex walks with the names it split once, and takes a changed folder's names afresh", async () => {
  await using ws = await tempWorkspace();
  for (const n of ["a.ts", "b.ts", "c.js", "sub/d.ts"]) await ws.write(n, "x");
  await pastRacyWindow();
  const index = new FileIndex();
  const names = () => {
    const seen: string[] = [];
    const ok = index.walk(ws.dir, {
      onFile(rel, name, node, k) {
        assert.equal(filesOf(node)[k], name, "the index of a file names it in its listing");
        seen.push(rel ? `${rel}/${name}` : name);
      },
    });
    assert.ok(ok);
    return seen.sort();
  };
  assert.deepEqual(names(), ["a.ts", "b.ts", "c.js", "sub/d.ts"]); // first walk: names as read
  assert.deepEqual(names(), ["a.ts", "b.ts", "c.js", "sub/d.ts"]); // warm: split once and kept
  assert.deepEqual(names(), ["a.ts", "b.ts", "c.js", "sub/d.ts"]);
  await Deno.rename(ws.path("a.ts"), ws.path("z.ts"));
  await ws.write("sub/e.ts", "x");
  assert.deepEqual(names(), ["b.ts", "c.js", "sub/d.ts", "sub/e.ts", "z.ts"]);
  assert.deepEqual(names(), ["b.ts", "c.js", "sub/d.ts", "sub/e.ts", "z.ts"]);
});

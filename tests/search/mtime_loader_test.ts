import assert from "node:assert/strict";
import { ToolRegistry } from "../../src/tool/registry.ts";
import { runTool } from "../../src/tool/run_tool.ts";
import { FileIndex, filesOf } from "../../src/search/file_index.ts";
import { type MtimeItem, MtimeLoader, WORKER_FROM } from "../../src/search/mtime_loader.ts";
import { createGlobTool } from "../../src/tools/glob.ts";
import { tempWorkspace } from "../_helpers/workspace.ts";

Deno.test("Mtimes loaded on the worker thread equal the files' own, and are cached in the index", async () => {
  await using ws = await tempWorkspace();
  for (let i = 0; i < 40; i++) {
    const p = await ws.write(`d/f${i}.txt`, "x");
    Deno.utimeSync(p, 1_000_000 + i * 7, 1_000_000 + i * 7);
  }
  const index = new FileIndex();
  const node = index.node(ws.path("d"))!;
  const items: MtimeItem[] = filesOf(node).map((name, k) => ({
    dir: ws.path("d"),
    name,
    node,
    k,
    mtime: NaN,
  }));
  const loader = new MtimeLoader({ workerFrom: 1 }); // a worker from the first file, batches of one
  for (const item of items) loader.add(item);
  await loader.finish();
  for (const item of items) {
    assert.equal(item.mtime, Deno.statSync(ws.path("d", item.name)).mtime!.getTime());
    assert.equal(item.mtime, (1_000_000 + Number(item.name.slice(1, -4)) * 7) * 1000);
  }
  // a later loader takes them from the node, statting nothing
  await Deno.remove(ws.path("d", "f3.txt"));
  const again: MtimeItem = {
    dir: ws.path("d"),
    name: "f3.txt",
    node,
    k: filesOf(node).indexOf("f3.txt"),
    mtime: NaN,
  };
  const cached = new MtimeLoader({ workerFrom: Infinity });
  cached.add(again);
  await cached.finish();
  assert.equal(again.mtime, 1_000_021_000);
});

Deno.test("Glob over more matches than start the mtime worker still lists newest first", async () => {
  await using ws = await tempWorkspace();
  const n = WORKER_FROM + 300;
  for (let d = 0; d < 20; d++) await Deno.mkdir(ws.path(`t/d${d}`), { recursive: true });
  for (let i = 0; i < n; i++) {
    const p = ws.path(`t/d${i % 20}/f${i}.ts`);
    Deno.writeTextFileSync(p, "");
    Deno.utimeSync(p, 2_000_000 + i, 2_000_000 + i);
  }
  const registry = new ToolRegistry([createGlobTool()]);
  const r = await runTool(registry, { name: "Glob", input: { pattern: "**/*.ts" } }, { session: ws.session });
  assert.ok(r.ok, r.text);
  const data = r.data as { filenames: string[]; numFiles: number };
  assert.equal(data.numFiles, n);
  const expected = Array.from({ length: 100 }, (_, j) => n - 1 - j).map((i) =>
    ws.path(`t/d${i % 20}/f${i}.ts`)
  );
  assert.deepEqual(data.filenames, expected);
});

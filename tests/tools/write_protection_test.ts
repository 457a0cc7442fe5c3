import assert from "node:assert/strict";
import { isInside } from "../../src/session/workspace.ts";
import { runTool, type ToolCallResult } from "../../src/tool/run_tool.ts";
import type { Session } from "../../src/session/session.ts";
import { fileRegistry } from "../_helpers/file_tools.ts";
import { tempWorkspace } from "../_helpers/workspace.ts";

function runFileTool(
  session: Session,
  name: string,
  input: Record<string, unknown>,
): Promise<ToolCallResult> {
  return runTool(fileRegistry, { name, input }, { session, approver: () => Promise.resolve(true) });
}

// Write, Edit and NotebookEdit refuse what the OS would refuse the user. Our writes rename a temp
// file over the target, which needs only the folder to be writable, and root may write anything:
// so the mode is checked before replacing, and the replacement keeps the file's mode and owner.

const NOTEBOOK = JSON.stringify({
  cells: [{
    cell_type: "code",
    id: "c1",
    metadata: {},
    source: ["x = 1\n"],
    outputs: [],
    execution_count: null,
  }],
  metadata: {},
  nbformat: 4,
  nbformat_minor: 5,
});

Deno.test("Write, Edit and NotebookEdit refuse a read-only (0444) file and leave it unchanged", async () => {
  await using ws = await tempWorkspace();
  const txt = await ws.write("ro.txt", "old\n");
  const nb = await ws.write("ro.ipynb", NOTEBOOK);
  for (const p of [txt, nb]) {
    await runFileTool(ws.session, "Read", { file_path: p });
    await Deno.chmod(p, 0o444);
  }
  const calls: Array<[string, Record<string, unknown>]> = [
    ["Write", { file_path: txt, content: "new\n" }],
    ["Edit", { file_path: txt, old_string: "old", new_string: "new" }],
    ["NotebookEdit", { notebook_path: nb, cell_id: "c1", new_source: "x = 2" }],
  ];
  for (const [name, input] of calls) {
    const r = await runFileTool(ws.session, name, input);
    assert.equal(r.ok, false, `${name}: ${r.text}`);
    assert.equal(r.error?.code, "permission_denied", name);
    assert.match(r.text, /^Error: Cannot write ".*ro\.(txt|ipynb)": it is read-only \(mode 0444\)$/, name);
  }
  assert.equal(await Deno.readTextFile(txt), "old\n");
  assert.equal(await Deno.readTextFile(nb), NOTEBOOK);
  assert.equal((await Deno.stat(txt)).mode! & 0o777, 0o444);
});

Deno.test("Write and Edit keep a writable file's mode and, as root, its owner", async () => {
  await using ws = await tempWorkspace();
  const p = await ws.write("own.txt", "a\n");
  await Deno.chmod(p, 0o640);
  const root = Deno.uid() === 0;
  if (root) await Deno.chown(p, 12345, 23456);
  await runFileTool(ws.session, "Read", { file_path: p });
  const w = await runFileTool(ws.session, "Write", { file_path: p, content: "b\n" });
  assert.ok(w.ok, w.text);
  const e = await runFileTool(ws.session, "Edit", { file_path: p, old_string: "b", new_string: "c" });
  assert.ok(e.ok, e.text);
  const info = await Deno.stat(p);
  assert.equal(await Deno.readTextFile(p), "c\n");
  assert.equal(info.mode! & 0o777, 0o640);
  if (root) assert.deepEqual([info.uid, info.gid], [12345, 23456]);
});

Deno.test("A file named ..hidden or in a folder ..foo is inside the root; .. itself is not", async () => {
  await using ws = await tempWorkspace();
  const hidden = ws.path("..hidden");
  const nested = ws.path("..foo/x.txt");
  for (const p of [hidden, nested]) {
    const w = await runFileTool(ws.session, "Write", { file_path: p, content: "in\n" });
    assert.ok(w.ok, w.text);
    const r = await runFileTool(ws.session, "Read", { file_path: p });
    assert.ok(r.ok, r.text);
    assert.match(r.text, /in/);
  }
  assert.ok(isInside("/w/..hidden", ["/w"]));
  assert.ok(isInside("/w/..foo/x", ["/w"]));
  assert.ok(isInside("/w/a/..b", ["/w"]));
  assert.ok(!isInside("/w/../x", ["/w"]));
  assert.ok(!isInside("/", ["/w"]));
  assert.ok(!isInside("/w2", ["/w"]));
  const out = await runFileTool(ws.session, "Write", { file_path: `${ws.dir}/../escape.txt`, content: "x" });
  assert.equal(out.error?.code, "permission_denied");
});

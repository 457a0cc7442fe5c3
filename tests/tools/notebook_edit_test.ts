import assert from "node:assert/strict";
import type { NotebookEditData } from "../../src/tools/notebook_edit.ts";
import { parseNotebook } from "../../src/files/notebook.ts";
import { runFileTool } from "../_helpers/file_tools.ts";
import { type TempWorkspace, tempWorkspace } from "../_helpers/workspace.ts";

const FIXTURE = new URL("./fixtures/squares.ipynb", import.meta.url);

async function realNotebook(ws: TempWorkspace): Promise<{ path: string; before: string }> {
  const before = await Deno.readTextFile(FIXTURE);
  const path = await ws.write("squares.ipynb", before);
  await runFileTool(ws.session, "Read", { file_path: path });
  return { path, before };
}

/** The text of each cell, as stored. */
function cellTexts(text: string): string[] {
  const nb = parseNotebook(text);
  return nb.spans.map(([s, e]) => text.slice(s, e));
}

Deno.test("NotebookEdit replaces a code cell, clears its outputs and leaves the rest byte for byte", async () => {
  await using ws = await tempWorkspace();
  const { path, before } = await realNotebook(ws);
  const ids = parseNotebook(before).cells.map((c) => c.id!);
  const r = await runFileTool(ws.session, "NotebookEdit", {
    notebook_path: path,
    cell_id: ids[1],
    new_source: "cubes = [n ** 3 for n in range(5)]\nprint(cubes)",
  });
  assert.ok(r.ok, r.text);
  const after = await Deno.readTextFile(path);
  const [b, a] = [cellTexts(before), cellTexts(after)];
  assert.deepEqual([a[0], a[2], a[3]], [b[0], b[2], b[3]]);
  const nb = parseNotebook(after);
  assert.deepEqual(nb.cells[1].source, ["cubes = [n ** 3 for n in range(5)]\n", "print(cubes)"]);
  assert.deepEqual(nb.cells[1].outputs, []);
  assert.equal(nb.cells[1].execution_count, null);
  assert.equal(nb.cells[1].id, ids[1]);
  // everything outside the cells array is untouched too
  const head = (t: string) => t.slice(0, parseNotebook(t).arraySpan[0]);
  const tail = (t: string) => t.slice(parseNotebook(t).arraySpan[1]);
  assert.equal(head(after), head(before));
  assert.equal(tail(after), tail(before));
  // the replaced cell is written as Jupyter writes cells
  assert.equal(
    a[1],
    `{\n   "cell_type": "code",\n   "execution_count": null,\n   "id": "${ids[1]}",\n   "metadata": {},\n` +
      `   "outputs": [],\n   "source": [\n    "cubes = [n ** 3 for n in range(5)]\\n",\n    "print(cubes)"\n   ]\n  }`,
  );
});

Deno.test("NotebookEdit inserts after a named cell, or first, with a new id in nbformat 4.5", async () => {
  await using ws = await tempWorkspace();
  const { path, before } = await realNotebook(ws);
  const noType = await runFileTool(ws.session, "NotebookEdit", {
    notebook_path: path,
    new_source: "x",
    edit_mode: "insert",
  });
  assert.match(noType.text, /needs cell_type/);
  const r = await runFileTool(ws.session, "NotebookEdit", {
    notebook_path: path,
    cell_id: "cell-1",
    new_source: "## Totals",
    cell_type: "markdown",
    edit_mode: "insert",
  });
  assert.ok(r.ok, r.text);
  assert.equal((r.data as NotebookEditData).index, 2);
  const first = await runFileTool(ws.session, "NotebookEdit", {
    notebook_path: path,
    new_source: "import math",
    cell_type: "code",
    edit_mode: "insert",
  });
  assert.ok(first.ok, first.text);
  const after = await Deno.readTextFile(path);
  const nb = parseNotebook(after);
  assert.deepEqual(nb.cells.map((c) => sourceOf(c.source)), [
    "import math",
    sourceOf(parseNotebook(before).cells[0].source),
    sourceOf(parseNotebook(before).cells[1].source),
    "## Totals",
    "sum(squares)",
    "1 / 0",
  ]);
  assert.match(nb.cells[0].id!, /^[0-9a-f]{8}$/);
  assert.deepEqual(nb.cells[0].outputs, []);
  const b = cellTexts(before), a = cellTexts(after);
  assert.deepEqual([a[1], a[2], a[4], a[5]], b);
  // the inserted cell is formatted as Jupyter would write it
  assert.equal(
    a[3],
    `{\n   "cell_type": "markdown",\n   "id": "${
      nb.cells[3].id
    }",\n   "metadata": {},\n   "source": [\n    "## Totals"\n   ]\n  }`,
  );
});

function sourceOf(s: string | string[]): string {
  return Array.isArray(s) ? s.join("") : s;
}

Deno.test("NotebookEdit deletes a cell by cell-N and keeps a string source as a string", async () => {
  await using ws = await tempWorkspace();
  const text = JSON.stringify(
    {
      cells: [
        { cell_type: "markdown", metadata: {}, source: "# Title" },
        {
          cell_type: "code",
          execution_count: 4,
          metadata: {},
          outputs: [{ output_type: "stream", name: "stdout", text: "hi\n" }],
          source: "print('hi')",
        },
      ],
      metadata: {},
      nbformat: 4,
      nbformat_minor: 4,
    },
    null,
    1,
  ) + "\n";
  const p = await ws.write("old.ipynb", text);
  await runFileTool(ws.session, "Read", { file_path: p });
  const rep = await runFileTool(ws.session, "NotebookEdit", {
    notebook_path: p,
    cell_id: "cell-1",
    new_source: "print('bye')",
  });
  assert.ok(rep.ok, rep.text);
  let nb = parseNotebook(await Deno.readTextFile(p));
  assert.equal(nb.cells[1].source, "print('bye')");
  const ins = await runFileTool(ws.session, "NotebookEdit", {
    notebook_path: p,
    cell_id: "cell-0",
    new_source: "text",
    cell_type: "markdown",
    edit_mode: "insert",
  });
  assert.ok(ins.ok, ins.text);
  nb = parseNotebook(await Deno.readTextFile(p));
  assert.equal(nb.cells[1].id, undefined, "nbformat 4.4 gets no cell ids");
  const del = await runFileTool(ws.session, "NotebookEdit", {
    notebook_path: p,
    cell_id: "cell-0",
    new_source: "",
    edit_mode: "delete",
  });
  assert.ok(del.ok, del.text);
  const after = await Deno.readTextFile(p);
  nb = parseNotebook(after);
  assert.deepEqual(nb.cells.map((c) => c.source), ["text", "print('bye')"]);
  assert.ok(after.endsWith("\n"));
  JSON.parse(after);
  const unknown = await runFileTool(ws.session, "NotebookEdit", {
    notebook_path: p,
    cell_id: "nope",
    new_source: "",
  });
  assert.equal(unknown.error?.code, "not_found");
  assert.match(unknown.text, /No cell "nope".*"cell-N" with N from 0 to 1/);
});

Deno.test("NotebookEdit refuses an unread notebook, a non-notebook and a symlink escape", async () => {
  await using ws = await tempWorkspace();
  await using outside = await tempWorkspace("paddock-outside-");
  const p = await ws.write("n.ipynb", await Deno.readTextFile(FIXTURE));
  const unread = await runFileTool(ws.session, "NotebookEdit", {
    notebook_path: p,
    cell_id: "cell-0",
    new_source: "x",
  });
  assert.equal(unread.error?.code, "conflict");
  const txt = await ws.write("n.txt", "x");
  const notNb = await runFileTool(ws.session, "NotebookEdit", {
    notebook_path: txt,
    cell_id: "cell-0",
    new_source: "x",
  });
  assert.match(notNb.text, /not a notebook/);
  const target = await outside.write("o.ipynb", await Deno.readTextFile(FIXTURE));
  await Deno.symlink(target, ws.path("o.ipynb"));
  const esc = await runFileTool(ws.session, "NotebookEdit", {
    notebook_path: ws.path("o.ipynb"),
    cell_id: "cell-0",
    new_source: "x",
  });
  assert.equal(esc.error?.code, "permission_denied");
  assert.equal(await Deno.readTextFile(target), await Deno.readTextFile(FIXTURE));
});

Deno.test("NotebookEdit refuses a notebook changed since it was read, a relative path and a folder", async () => {
  await using ws = await tempWorkspace();
  const { path, before } = await realNotebook(ws);
  await Deno.writeTextFile(path, before.replace('"# Squares', '"# Cubes'));
  const stale = await runFileTool(ws.session, "NotebookEdit", {
    notebook_path: path,
    cell_id: "cell-1",
    new_source: "x",
  });
  assert.equal(stale.error?.code, "conflict");
  assert.match(stale.text, /changed on disk since it was read/);
  assert.ok((await Deno.readTextFile(path)).includes('"# Cubes'));
  const rel = await runFileTool(ws.session, "NotebookEdit", {
    notebook_path: "squares.ipynb",
    cell_id: "cell-0",
    new_source: "x",
  });
  assert.equal(rel.error?.code, "invalid_input");
  assert.ok(rel.text.includes(`did you mean "${path}"`), rel.text);
  await Deno.mkdir(ws.path("dir.ipynb"));
  const dir = await runFileTool(ws.session, "NotebookEdit", {
    notebook_path: ws.path("dir.ipynb"),
    cell_id: "cell-0",
    new_source: "x",
  });
  assert.match(dir.text, /is a directory/);
});

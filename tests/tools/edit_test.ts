import assert from "node:assert/strict";
import type { EditData } from "../../src/tools/edit.ts";
import { Session } from "../../src/session/session.ts";
import { runFileTool } from "../_helpers/file_tools.ts";
import { tempWorkspace } from "../_helpers/workspace.ts";

Deno.test("Edit replaces one exact match and returns a numbered snippet and a diff", async () => {
  await using ws = await tempWorkspace();
  const p = await ws.write("m.ts", "const a = 1;\nconst b = 2;\nconst c = 3;\n");
  await runFileTool(ws.session, "Read", { file_path: p });
  const r = await runFileTool(ws.session, "Edit", {
    file_path: p,
    old_string: "b = 2",
    new_string: "b = 20",
  });
  assert.ok(r.ok, r.text);
  assert.equal(await Deno.readTextFile(p), "const a = 1;\nconst b = 20;\nconst c = 3;\n");
  assert.ok(r.text.includes("     2\tconst b = 20;"), r.text);
  const d = r.data as EditData;
  assert.equal(d.startLine, 2);
  assert.equal(d.replacements, 1);
  assert.match(d.diff, /-const b = 2;\n\+const b = 20;/);
  // its own edit counts as a read
  const again = await runFileTool(ws.session, "Edit", {
    file_path: p,
    old_string: "c = 3",
    new_string: "c = 30",
  });
  assert.ok(again.ok, again.text);
});

Deno.test("Edit errors: identical strings, not found, several matches without replace_all", async () => {
  await using ws = await tempWorkspace();
  const p = await ws.write("x.txt", "foo bar foo baz foo\n");
  await runFileTool(ws.session, "Read", { file_path: p });
  const same = await runFileTool(ws.session, "Edit", { file_path: p, old_string: "foo", new_string: "foo" });
  assert.match(same.text, /identical/);
  const missing = await runFileTool(ws.session, "Edit", { file_path: p, old_string: "qux", new_string: "q" });
  assert.match(missing.text, /old_string was not found in ".*x.txt": Read the file again/);
  const many = await runFileTool(ws.session, "Edit", { file_path: p, old_string: "foo", new_string: "F" });
  assert.match(many.text, /occurs 3 times.*set replace_all to true/);
  assert.equal(await Deno.readTextFile(p), "foo bar foo baz foo\n");
  const all = await runFileTool(ws.session, "Edit", {
    file_path: p,
    old_string: "foo",
    new_string: "F",
    replace_all: true,
  });
  assert.ok(all.ok, all.text);
  assert.equal((all.data as EditData).replacements, 3);
  assert.equal(await Deno.readTextFile(p), "F bar F baz F\n");
});

Deno.test("Edit refuses a file not read, or changed since it was read", async () => {
  await using ws = await tempWorkspace();
  const p = await ws.write("x.txt", "one\n");
  const unread = await runFileTool(ws.session, "Edit", {
    file_path: p,
    old_string: "one",
    new_string: "two",
  });
  assert.equal(unread.error?.code, "conflict");
  assert.match(unread.text, /use Read on it first/);
  await runFileTool(ws.session, "Read", { file_path: p });
  await Deno.writeTextFile(p, "one, changed\n");
  const stale = await runFileTool(ws.session, "Edit", { file_path: p, old_string: "one", new_string: "two" });
  assert.equal(stale.error?.code, "conflict");
  assert.equal(await Deno.readTextFile(p), "one, changed\n");
});

Deno.test("Edit with an empty old_string creates a missing file and refuses a non-empty one", async () => {
  await using ws = await tempWorkspace();
  const p = ws.path("new", "made.txt");
  const r = await runFileTool(ws.session, "Edit", { file_path: p, old_string: "", new_string: "hello\n" });
  assert.ok(r.ok, r.text);
  assert.equal((r.data as EditData).created, true);
  assert.equal(await Deno.readTextFile(p), "hello\n");
  const again = await runFileTool(ws.session, "Edit", { file_path: p, old_string: "", new_string: "x" });
  assert.match(again.text, /is not empty/);
  const gone = await runFileTool(ws.session, "Edit", {
    file_path: ws.path("gone.txt"),
    old_string: "a",
    new_string: "b",
  });
  assert.equal(gone.error?.code, "not_found");
});

Deno.test("Edit matches straight quotes against curly ones and keeps the file's quotes", async () => {
  await using ws = await tempWorkspace();
  const p = await ws.write("q.md", "She said \u201Chello\u201D and it\u2019s fine.\n");
  await runFileTool(ws.session, "Read", { file_path: p });
  const r = await runFileTool(ws.session, "Edit", {
    file_path: p,
    old_string: `said "hello" and it's`,
    new_string: `said "goodbye" and it's`,
  });
  assert.ok(r.ok, r.text);
  assert.equal((r.data as EditData).quoteFallback, true);
  assert.equal(await Deno.readTextFile(p), "She said \u201Cgoodbye\u201D and it\u2019s fine.\n");
});

Deno.test("Edit keeps CRLF, a UTF-8 BOM and UTF-16LE as found", async () => {
  await using ws = await tempWorkspace();
  const crlf = await ws.write("w.txt", "line one\r\nline two\r\nline three\r\n");
  await runFileTool(ws.session, "Read", { file_path: crlf });
  const r = await runFileTool(ws.session, "Edit", {
    file_path: crlf,
    old_string: "one\nline two",
    new_string: "one\nline 2\nline 2.5",
  });
  assert.ok(r.ok, r.text);
  assert.equal(await Deno.readTextFile(crlf), "line one\r\nline 2\r\nline 2.5\r\nline three\r\n");
  const enc = new TextEncoder();
  const bom = await ws.write("b.txt", new Uint8Array([0xef, 0xbb, 0xbf, ...enc.encode("k = v\n")]));
  await runFileTool(ws.session, "Read", { file_path: bom });
  await runFileTool(ws.session, "Edit", { file_path: bom, old_string: "v", new_string: "w" });
  assert.deepEqual([...await Deno.readFile(bom)], [0xef, 0xbb, 0xbf, ...enc.encode("k = w\n")]);
  const u16 = (
    s: string,
  ) => [0xff, 0xfe, ...[...s].flatMap((c) => [c.charCodeAt(0) & 0xff, c.charCodeAt(0) >> 8])];
  const p16 = await ws.write("u.txt", new Uint8Array(u16("naïve\r\ncafé\r\n")));
  await runFileTool(ws.session, "Read", { file_path: p16 });
  const e16 = await runFileTool(ws.session, "Edit", {
    file_path: p16,
    old_string: "café",
    new_string: "crème",
  });
  assert.ok(e16.ok, e16.text);
  assert.deepEqual([...await Deno.readFile(p16)], u16("naïve\r\ncrème\r\n"));
});

Deno.test("Edit matches across mixed LF and CRLF lines and keeps every untouched line's ending", async () => {
  await using ws = await tempWorkspace();
  const p = await ws.write("mixed.txt", "one\r\ntwo\r\nthree\nfour\nfive\r\n");
  await runFileTool(ws.session, "Read", { file_path: p });
  // the model copies lines from Read, which shows no CR: a multi-line match across both endings
  const r = await runFileTool(ws.session, "Edit", {
    file_path: p,
    old_string: "two\nthree",
    new_string: "TWO\nTHREE",
  });
  assert.ok(r.ok, r.text);
  assert.equal(await Deno.readTextFile(p), "one\r\nTWO\r\nTHREE\nfour\nfive\r\n");
  assert.ok(r.text.includes("     2\tTWO\n     3\tTHREE"), r.text);
  assert.ok(!r.text.includes("\r"), r.text);
  // new lines take the ending of the lines they replace
  const grow = await runFileTool(ws.session, "Edit", {
    file_path: p,
    old_string: "five",
    new_string: "five\nsix",
  });
  assert.ok(grow.ok, grow.text);
  const lf = await runFileTool(ws.session, "Edit", {
    file_path: p,
    old_string: "four\n",
    new_string: "four\n4.5\n",
  });
  assert.ok(lf.ok, lf.text);
  assert.equal(await Deno.readTextFile(p), "one\r\nTWO\r\nTHREE\nfour\n4.5\nfive\r\nsix\r\n");
});

Deno.test("Edit refuses a notebook and points to NotebookEdit", async () => {
  await using ws = await tempWorkspace();
  const p = await ws.write("n.ipynb", '{"cells": [], "nbformat": 4, "nbformat_minor": 5, "metadata": {}}\n');
  await runFileTool(ws.session, "Read", { file_path: p });
  const r = await runFileTool(ws.session, "Edit", { file_path: p, old_string: "cells", new_string: "x" });
  assert.equal(r.error?.code, "invalid_input");
  assert.match(r.text, /use NotebookEdit/);
});

Deno.test("Concurrent Edits of one file lose no update", async () => {
  await using ws = await tempWorkspace();
  const lines = Array.from({ length: 20 }, (_, i) => `item ${i}`);
  const p = await ws.write("list.txt", lines.join("\n") + "\n");
  // one session, twenty edits at once: all land
  await runFileTool(ws.session, "Read", { file_path: p });
  const results = await Promise.all(
    lines.map((l) =>
      runFileTool(ws.session, "Edit", { file_path: p, old_string: `${l}\n`, new_string: `${l} done\n` })
    ),
  );
  assert.ok(results.every((r) => r.ok), results.map((r) => r.text).join("\n"));
  assert.equal(await Deno.readTextFile(p), lines.map((l) => `${l} done`).join("\n") + "\n");
  // two sessions that read the same version: the second sees the file changed
  const other = new Session({ roots: [ws.dir], outputDir: ws.session.outputDir() });
  await runFileTool(ws.session, "Read", { file_path: p });
  await runFileTool(other, "Read", { file_path: p });
  const [a, b] = await Promise.all([
    runFileTool(ws.session, "Edit", { file_path: p, old_string: "item 0 done", new_string: "item 0 A" }),
    runFileTool(other, "Edit", { file_path: p, old_string: "item 1 done", new_string: "item 1 B" }),
  ]);
  // exactly one lands; the other is refused, not silently overwritten
  assert.equal([a, b].filter((r) => r.ok).length, 1);
  const loser = a.ok ? b : a;
  assert.equal(loser.error?.code, "conflict");
  assert.match(loser.text, /changed on disk since it was read/);
  const text = await Deno.readTextFile(p);
  assert.equal(text.includes("item 0 A"), a.ok);
  assert.equal(text.includes("item 1 B"), b.ok);
});

Deno.test("Edit refuses a symlink that escapes the workspace and a relative path", async () => {
  await using ws = await tempWorkspace();
  await using outside = await tempWorkspace("paddock-outside-");
  const target = await outside.write("t.txt", "keep\n");
  await Deno.symlink(target, ws.path("t.txt"));
  const r = await runFileTool(ws.session, "Edit", {
    file_path: ws.path("t.txt"),
    old_string: "keep",
    new_string: "gone",
  });
  assert.equal(r.error?.code, "permission_denied");
  assert.equal(await Deno.readTextFile(target), "keep\n");
  const rel = await runFileTool(ws.session, "Edit", { file_path: "t.txt", old_string: "a", new_string: "b" });
  assert.ok(rel.text.includes(`did you mean "${ws.path("t.txt")}"`));
});

Deno.test("Edit refuses a folder and a pipe", async () => {
  await using ws = await tempWorkspace();
  await Deno.mkdir(ws.path("dir"));
  const dir = await runFileTool(ws.session, "Edit", {
    file_path: ws.path("dir"),
    old_string: "a",
    new_string: "b",
  });
  assert.equal(dir.error?.code, "invalid_input");
  assert.match(dir.text, /is a directory/);
  const made = await new Deno.Command("mkfifo", { args: [ws.path("pipe")] }).output();
  assert.ok(made.success);
  const pipe = await runFileTool(ws.session, "Edit", {
    file_path: ws.path("pipe"),
    old_string: "a",
    new_string: "b",
  });
  assert.match(pipe.text, /device, socket or pipe/);
});

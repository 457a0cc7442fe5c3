import assert from "node:assert/strict";
import type { WriteData } from "../../src/tools/write.ts";
import { runFileTool } from "../_helpers/file_tools.ts";
import { tempWorkspace } from "../_helpers/workspace.ts";

Deno.test("Write creates a file and its parent folders", async () => {
  await using ws = await tempWorkspace();
  const p = ws.path("a", "b", "new.txt");
  const r = await runFileTool(ws.session, "Write", { file_path: p, content: "one\ntwo\n" });
  assert.ok(r.ok, r.text);
  assert.equal(await Deno.readTextFile(p), "one\ntwo\n");
  const d = r.data as WriteData;
  assert.equal(d.type, "create");
  assert.equal(d.lines, 2);
  assert.match(r.text, /^Created ".*new.txt" \(2 lines\)$/);
});

Deno.test("Write refuses to overwrite a file that was not read, then updates it after a Read with a diff", async () => {
  await using ws = await tempWorkspace();
  const p = await ws.write("f.txt", "a\nb\nc\n");
  const refused = await runFileTool(ws.session, "Write", { file_path: p, content: "x\n" });
  assert.equal(refused.error?.code, "conflict");
  assert.match(refused.text, /has not been read in this session: use Read on it first/);
  assert.equal(await Deno.readTextFile(p), "a\nb\nc\n");
  await runFileTool(ws.session, "Read", { file_path: p });
  const r = await runFileTool(ws.session, "Write", { file_path: p, content: "a\nB\nc\n" });
  assert.ok(r.ok, r.text);
  const d = r.data as WriteData;
  assert.equal(d.type, "update");
  assert.equal(d.diff, `--- ${p}\n+++ ${p}\n@@ -1,3 +1,3 @@\n a\n-b\n+B\n c`);
  // its own write counts as a read: a second Write needs no new Read
  const again = await runFileTool(ws.session, "Write", { file_path: p, content: "z\n" });
  assert.ok(again.ok, again.text);
});

Deno.test("Write refuses a file changed on disk since it was read, but not one only touched", async () => {
  await using ws = await tempWorkspace();
  const p = await ws.write("f.txt", "v1\n");
  await runFileTool(ws.session, "Read", { file_path: p });
  // same content, new mtime: still fresh
  await Deno.utime(p, new Date(), new Date(Date.now() + 5000));
  const touched = await runFileTool(ws.session, "Write", { file_path: p, content: "v2\n" });
  assert.ok(touched.ok, touched.text);
  await Deno.writeTextFile(p, "changed by someone else\n");
  const stale = await runFileTool(ws.session, "Write", { file_path: p, content: "v3\n" });
  assert.equal(stale.error?.code, "conflict");
  assert.match(stale.text, /changed on disk since it was read.*Read it again/);
  assert.equal(await Deno.readTextFile(p), "changed by someone else\n");
});

Deno.test("Write keeps the file's mode, UTF-16LE encoding, BOM and CRLF line endings", async () => {
  await using ws = await tempWorkspace();
  const p = await ws.write("script.sh", "#!/bin/sh\r\necho hi\r\n");
  await Deno.chmod(p, 0o750);
  await runFileTool(ws.session, "Read", { file_path: p });
  const r = await runFileTool(ws.session, "Write", { file_path: p, content: "#!/bin/sh\necho bye\n" });
  assert.ok(r.ok, r.text);
  assert.equal((await Deno.stat(p)).mode! & 0o777, 0o750);
  assert.equal(await Deno.readTextFile(p), "#!/bin/sh\r\necho bye\r\n");
  const u16 = await ws.write("u16.txt", new Uint8Array([0xff, 0xfe, 0x61, 0, 0x0a, 0]));
  await runFileTool(ws.session, "Read", { file_path: u16 });
  await runFileTool(ws.session, "Write", { file_path: u16, content: "bé\n" });
  assert.deepEqual([...await Deno.readFile(u16)], [0xff, 0xfe, 0x62, 0, 0xe9, 0, 0x0a, 0]);
  const withBom = await ws.write("bom.txt", new Uint8Array([0xef, 0xbb, 0xbf, 0x78]));
  await runFileTool(ws.session, "Read", { file_path: withBom });
  await runFileTool(ws.session, "Write", { file_path: withBom, content: "y" });
  assert.deepEqual([...await Deno.readFile(withBom)], [0xef, 0xbb, 0xbf, 0x79]);
});

Deno.test("Write killed with SIGKILL mid-write leaves the file wholly old or wholly new", async () => {
  await using ws = await tempWorkspace();
  const size = 8 * 1024 * 1024;
  const file = await ws.write("target.txt", "A".repeat(size));
  const child = new URL("../_helpers/write_loop_child.ts", import.meta.url).pathname;
  let killedMidWrite = 0;
  for (let round = 0; round < 8 && killedMidWrite < 2; round++) {
    const proc = new Deno.Command(Deno.execPath(), {
      args: ["run", "-A", "--quiet", child, file, String(size)],
      stdout: "piped",
      stderr: "inherit",
    }).spawn();
    const reader = proc.stdout.pipeThrough(new TextDecoderStream()).getReader();
    let seen = "";
    while (!/wrote [2-9]/.test(seen)) {
      const { value, done } = await reader.read();
      if (done) break;
      seen += value;
    }
    await new Promise((r) => setTimeout(r, 5 + round * 7));
    proc.kill("SIGKILL");
    await reader.cancel();
    const status = await proc.status;
    assert.equal(status.signal, "SIGKILL");
    const bytes = await Deno.readFile(file);
    assert.equal(bytes.length, size);
    const first = bytes[0];
    assert.ok(first === 0x41 || first === 0x42);
    assert.ok(bytes.every((b) => b === first), "the file mixes old and new bytes");
    // a leftover temp file shows the kill landed inside a write
    for await (const e of Deno.readDir(ws.dir)) {
      if (e.name.endsWith(".paddock-tmp")) {
        killedMidWrite++;
        await Deno.remove(ws.path(e.name));
      }
    }
  }
  assert.ok(killedMidWrite > 0, "no kill landed inside a write");
});

Deno.test("Write clears temp files left by killed writes in its folder, not live or foreign ones", async () => {
  await using ws = await tempWorkspace();
  const old = Date.now() / 1000 - 3600;
  const stale = [".a.txt.0badc0de.paddock-tmp", ".other.md.12345678.paddock-tmp"];
  const kept = [".a.txt.feedf00d.paddock-tmp", ".notes.paddock-tmp", "x.0badc0de.paddock-tmp"];
  for (const name of [...stale, ...kept]) await ws.write(`d/${name}`, "partial");
  for (const name of [...stale, kept[1], kept[2]]) await Deno.utime(ws.path("d", name), old, old);
  const r = await runFileTool(ws.session, "Write", { file_path: ws.path("d", "a.txt"), content: "new\n" });
  assert.ok(r.ok, r.text);
  const left: string[] = [];
  for await (const e of Deno.readDir(ws.path("d"))) left.push(e.name);
  // the fresh temp may belong to a write in progress; the others are not of our naming
  assert.deepEqual(left.sort(), ["a.txt", ...kept].sort());
});

Deno.test("Write refuses relative paths, folders and a symlink that escapes the workspace", async () => {
  await using ws = await tempWorkspace();
  await using outside = await tempWorkspace("paddock-outside-");
  const rel = await runFileTool(ws.session, "Write", { file_path: "x.txt", content: "" });
  assert.ok(rel.text.includes(`did you mean "${ws.path("x.txt")}"`));
  await Deno.mkdir(ws.path("dir"));
  const dir = await runFileTool(ws.session, "Write", { file_path: ws.path("dir"), content: "" });
  assert.match(dir.text, /is a directory/);
  await Deno.symlink(outside.dir, ws.path("out"));
  const esc = await runFileTool(ws.session, "Write", {
    file_path: ws.path("out", "pwned.txt"),
    content: "x",
  });
  assert.equal(esc.error?.code, "permission_denied");
  await assert.rejects(Deno.stat(outside.path("pwned.txt")), Deno.errors.NotFound);
  await Deno.symlink(outside.path("later.txt"), ws.path("dangling"));
  const dang = await runFileTool(ws.session, "Write", { file_path: ws.path("dangling"), content: "x" });
  assert.equal(dang.error?.code, "permission_denied");
  await assert.rejects(Deno.stat(outside.path("later.txt")), Deno.errors.NotFound);
});

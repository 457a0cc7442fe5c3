import assert from "node:assert/strict";
import { MAX_EDIT_RESULT_CHARS } from "../../src/tools/edit.ts";
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

Deno.test("Edit matches a CRLF old_string in an LF file and leaves no CRLF behind", async () => {
  await using ws = await tempWorkspace();
  const p = await ws.write("lf.txt", "one\ntwo\nthree\n");
  await runFileTool(ws.session, "Read", { file_path: p });
  const r = await runFileTool(ws.session, "Edit", {
    file_path: p,
    old_string: "one\r\ntwo",
    new_string: "uno\r\ndos\r\n2",
  });
  assert.ok(r.ok, r.text);
  assert.equal(await Deno.readTextFile(p), "uno\ndos\n2\nthree\n");
});

Deno.test("Edit in a CRLF file takes LF or CRLF strings and keeps the file CRLF", async () => {
  await using ws = await tempWorkspace();
  const p = await ws.write("crlf.txt", "one\r\ntwo\r\nthree\r\n");
  await runFileTool(ws.session, "Read", { file_path: p });
  const lf = await runFileTool(ws.session, "Edit", {
    file_path: p,
    old_string: "one\ntwo",
    new_string: "1\n2",
  });
  assert.ok(lf.ok, lf.text);
  const crlf = await runFileTool(ws.session, "Edit", {
    file_path: p,
    old_string: "2\r\nthree",
    new_string: "2\r\n3\n4",
  });
  assert.ok(crlf.ok, crlf.text);
  assert.equal(await Deno.readTextFile(p), "1\r\n2\r\n3\r\n4\r\n");
});

Deno.test("Edit calls strings that differ only in line endings identical", async () => {
  await using ws = await tempWorkspace();
  const p = await ws.write("lf.txt", "a\nb\n");
  await runFileTool(ws.session, "Read", { file_path: p });
  const r = await runFileTool(ws.session, "Edit", { file_path: p, old_string: "a\nb", new_string: "a\r\nb" });
  assert.equal(r.error?.code, "invalid_input");
  assert.match(r.text, /identical/);
});

Deno.test("Edit refuses a replace_all whose result would pass the size limit, before building it", async () => {
  await using ws = await tempWorkspace();
  // 1,000,000 "a": each replaced by 310 characters would make about 310 MiB
  const p = await ws.write("big.txt", ("a".repeat(100) + "\n").repeat(10_000));
  await runFileTool(ws.session, "Read", { file_path: p, limit: 1 });
  const r = await runFileTool(ws.session, "Edit", {
    file_path: p,
    old_string: "a",
    new_string: "b".repeat(310),
    replace_all: true,
  });
  assert.equal(r.ok, false);
  assert.equal(r.error?.code, "invalid_input");
  assert.match(
    r.text,
    /^Error: Cannot edit ".*big\.txt": the result of 1000000 replacements would be 295\.6 MiB, over the 64\.0 MiB limit/,
  );
  assert.equal((await Deno.stat(p)).size, 1_010_000);
  // a growth that stays under the limit works
  const ok = await runFileTool(ws.session, "Edit", {
    file_path: p,
    old_string: "a",
    new_string: "bb",
    replace_all: true,
  });
  assert.ok(ok.ok, ok.text);
  assert.equal((await Deno.stat(p)).size, 2_010_000);
  assert.ok(MAX_EDIT_RESULT_CHARS >= 2_010_000);
});

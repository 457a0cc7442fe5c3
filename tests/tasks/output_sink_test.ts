import assert from "node:assert/strict";
import { HEAD_CHARS, MEMORY_CHARS, OutputSink, TAIL_CHARS } from "../../src/tasks/output_sink.ts";
import { readOutputTail } from "../../src/tasks/output_tail.ts";
import { tempWorkspace } from "../_helpers/workspace.ts";

Deno.test("OutputSink keeps small output whole and writes no file", () => {
  const sink = new OutputSink({ spillPath: () => "/nonexistent/never" });
  sink.write("a");
  sink.write("b\n");
  assert.equal(sink.text(), "ab\n");
  assert.equal(sink.filePath, undefined);
  sink.close();
});

Deno.test("OutputSink past its memory limit keeps head and tail and the whole output in the file", async () => {
  await using ws = await tempWorkspace();
  const path = ws.path("spill.log");
  const sink = new OutputSink({ spillPath: () => path });
  const line = (i: number) => `line ${String(i).padStart(7, "0")}\n`;
  let all = "";
  for (let i = 0; i < 3 * MEMORY_CHARS / 13; i++) {
    sink.write(line(i));
    all += line(i);
  }
  sink.close();
  const text = sink.text();
  assert.ok(sink.cut);
  assert.equal(sink.totalChars, all.length);
  assert.ok(text.startsWith(all.slice(0, HEAD_CHARS)));
  assert.ok(text.endsWith(all.slice(all.length - TAIL_CHARS)));
  assert.match(
    text,
    new RegExp(`\\[… ${all.length - HEAD_CHARS - TAIL_CHARS} of ${all.length} characters cut here`),
  );
  assert.ok(text.length < 30_000, "fits the runner's cap, so it is not cut twice");
  assert.equal(Deno.readTextFileSync(path), all);
});

Deno.test("OutputSink.toFile writes what memory holds, then appends", async () => {
  await using ws = await tempWorkspace();
  const sink = new OutputSink();
  sink.write("before\n");
  const path = sink.toFile(ws.path("late.log"));
  sink.write("after\n");
  sink.close();
  assert.equal(Deno.readTextFileSync(path!), "before\nafter\n");
});

Deno.test("readOutputTail returns the end of a file without splitting a UTF-8 character", async () => {
  await using ws = await tempWorkspace();
  const path = await ws.write("t.log", "é".repeat(10));
  const tail = await readOutputTail(path, 5);
  assert.equal(tail.text, "éé");
  assert.equal(tail.totalBytes, 20);
  assert.equal(tail.skippedBytes, 16);
  assert.deepEqual(await readOutputTail(ws.path("missing.log")), {
    text: "",
    totalBytes: 0,
    skippedBytes: 0,
  });
});

Deno.test("OutputSink stops filling its file at the byte limit and says so in the file and the text", async () => {
  await using ws = await tempWorkspace();
  const path = ws.path("capped.log");
  const sink = new OutputSink({ filePath: path, maxFileBytes: 10 });
  sink.write("12345\n");
  sink.write("67890\n"); // would pass 10 bytes
  sink.write("more\n");
  sink.close();
  assert.ok(sink.fileFull);
  assert.equal(sink.totalChars, 17, "output is still counted");
  assert.equal(
    Deno.readTextFileSync(path),
    "12345\n\n[… output file limit of 10 bytes reached: the rest of the output was cut …]\n",
  );

  const spill = ws.path("spill.log");
  const big = new OutputSink({ spillPath: () => spill, maxFileBytes: MEMORY_CHARS });
  big.write("x".repeat(MEMORY_CHARS + 1));
  big.close();
  assert.match(big.text(), new RegExp(`holds the output up to its ${MEMORY_CHARS}-byte limit`));
});

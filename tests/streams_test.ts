import assert from "node:assert/strict";
import { lines } from "../src/streams.ts";

const enc = new TextEncoder();

/** A stream of the given chunks (strings are UTF-8 encoded), then its end. */
function chunks(...parts: (string | Uint8Array)[]): ReadableStream<Uint8Array> {
  return ReadableStream.from(parts.map((p) => (typeof p === "string" ? enc.encode(p) : p)));
}

/** A stream that sends `first` and then waits forever; `cancelled` resolves when it is cancelled. */
function hangingAfter(first: string) {
  const { promise: cancelled, resolve } = Promise.withResolvers<unknown>();
  const stream = new ReadableStream<Uint8Array>({
    start: (c) => c.enqueue(enc.encode(first)),
    cancel: (reason) => resolve(reason),
  });
  return { stream, cancelled };
}

Deno.test("lines splits on newlines across chunk boundaries and keeps empty lines", async () => {
  const table: [(string | Uint8Array)[], string[]][] = [
    [[], []],
    [[""], []],
    [["\n"], [""]],
    [["a\n\nb\n"], ["a", "", "b"]],
    [["a", "b", "c\nd"], ["abc", "d"]],
    [["one\ntw", "o\nthr", "ee\n"], ["one", "two", "three"]],
    [["x\r\ny\r\n"], ["x\r", "y\r"]],
    [["last line without newline"], ["last line without newline"]],
  ];
  for (const [input, expected] of table) {
    assert.deepEqual(await Array.fromAsync(lines(chunks(...input))), expected, JSON.stringify(input));
  }
});

Deno.test("lines splits on another delimiter when told", async () => {
  const names = chunks("a.ts\0b\nc.ts\0", "d.ts");
  assert.deepEqual(await Array.fromAsync(lines(names, undefined, { delimiter: "\0" })), [
    "a.ts",
    "b\nc.ts",
    "d.ts",
  ]);
  assert.throws(() => lines(chunks(), undefined, { delimiter: "\r\n" }), RangeError);
});

Deno.test("lines decodes a UTF-8 character split between chunks", async () => {
  const bytes = enc.encode("héllo\n€uro");
  const parts = [bytes.subarray(0, 2), bytes.subarray(2, 8), bytes.subarray(8, 9), bytes.subarray(9)];
  assert.deepEqual(await Array.fromAsync(lines(chunks(...parts))), ["héllo", "€uro"]);
});

Deno.test("lines keeps a long line that arrives in many chunks whole", async () => {
  const parts = Array.from({ length: 1000 }, () => "x".repeat(100));
  const [line, ...others] = await Array.fromAsync(lines(chunks(...parts, "\nend")));
  assert.equal(line.length, 100_000);
  assert.deepEqual(others, ["end"]);
});

Deno.test("lines ends without the rest when the signal aborts while a read waits, and cancels the stream", async () => {
  const { stream, cancelled } = hangingAfter("first\nsecond\npartial");
  const ac = new AbortController();
  const seen: string[] = [];
  for await (const line of lines(stream, ac.signal)) {
    seen.push(line);
    if (line === "second") setTimeout(() => ac.abort(), 10);
  }
  assert.deepEqual(seen, ["first", "second"]);
  await cancelled;
});

Deno.test("lines stops between lines of one chunk once the signal aborts", async () => {
  const ac = new AbortController();
  const seen: string[] = [];
  for await (const line of lines(chunks("a\nb\nc\n"), ac.signal)) {
    seen.push(line);
    ac.abort();
  }
  assert.deepEqual(seen, ["a"]);
});

Deno.test("lines yields nothing for an aborted signal", async () => {
  const { stream, cancelled } = hangingAfter("never\n");
  assert.deepEqual(await Array.fromAsync(lines(stream, AbortSignal.abort())), []);
  await cancelled;
});

Deno.test("lines cancels the stream when the loop is left early", async () => {
  const { stream, cancelled } = hangingAfter("one\ntwo\n");
  for await (const line of lines(stream)) {
    assert.equal(line, "one");
    break;
  }
  await cancelled;
});

Deno.test("lines passes on an error of the stream", async () => {
  let pulls = 0;
  const stream = new ReadableStream<Uint8Array>({
    pull: (c) => {
      if (pulls++ === 0) c.enqueue(enc.encode("ok\n"));
      else c.error(new Error("pipe broke"));
    },
  });
  const seen: string[] = [];
  await assert.rejects(async () => {
    for await (const line of lines(stream)) seen.push(line);
  }, /pipe broke/);
  assert.deepEqual(seen, ["ok"]);
});

import assert from "node:assert/strict";
import { type DiffHunk, diffLines, MAX_EDIT_LENGTH, unifiedDiff } from "../../src/files/diff.ts";

/** Applies hunks to `old`, checking every kept and removed line against it. */
function apply(old: readonly string[], hunks: DiffHunk[]): string[] {
  const out: string[] = [];
  let i = 0;
  for (const h of hunks) {
    while (i < h.oldStart - 1) out.push(old[i++]);
    for (const l of h.lines) {
      if (l.op !== "+") assert.equal(old[i++], l.text, `line ${i} of the old text`);
      if (l.op !== "-") out.push(l.text);
    }
    assert.equal(h.lines.filter((l) => l.op !== "+").length, h.oldLines);
    assert.equal(h.lines.filter((l) => l.op !== "-").length, h.newLines);
  }
  while (i < old.length) out.push(old[i++]);
  return out;
}

Deno.test("unifiedDiff writes diff(1) ranges, one name in both headers, nothing for equal texts", async () => {
  const table: [string, string, string][] = [
    ["a\nb\nc\n", "a\nB\nc\n", "--- f\n+++ f\n@@ -1,3 +1,3 @@\n a\n-b\n+B\n c"],
    ["b\n", "B\n", "--- f\n+++ f\n@@ -1 +1 @@\n-b\n+B"],
    ["", "new\n", "--- f\n+++ f\n@@ -0,0 +1 @@\n+new"],
    ["a\nb\n", "a\n", "--- f\n+++ f\n@@ -1,2 +1 @@\n a\n-b"],
    ["1\n2\n3\n4\n5\n", "1\n2\n3\n4\nx\n5\n", "--- f\n+++ f\n@@ -2,4 +2,5 @@\n 2\n 3\n 4\n+x\n 5"],
    ["a\r\nb\r\n", "a\nb", ""],
    ["same\n", "same\n", ""],
  ];
  for (const [before, after, expected] of table) {
    assert.equal(await unifiedDiff(before, after, "f"), expected, JSON.stringify([before, after]));
  }
});

Deno.test("diffLines splits hunks only where more than twice the context is unchanged", async () => {
  const old = Array.from({ length: 20 }, (_, i) => `l${i}`);
  const near = old.map((l, i) => (i === 3 || i === 10 ? l.toUpperCase() : l)); // 6 unchanged between
  assert.deepEqual((await diffLines(old, near)).map((h) => [h.oldStart, h.oldLines]), [[1, 14]]);
  const far = old.map((l, i) => (i === 3 || i === 11 ? l.toUpperCase() : l)); // 7 unchanged between
  const hunks = await diffLines(old, far);
  assert.deepEqual(hunks.map((h) => [h.oldStart, h.oldLines]), [[1, 7], [9, 7]]);
  assert.deepEqual(apply(old, hunks), far);
});

Deno.test("diffLines gives hunks that turn the old lines into the new ones", async () => {
  let seed = 42;
  const random = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
  for (let round = 0; round < 300; round++) {
    const old = Array.from({ length: Math.floor(random() * 40) }, () => "abcd"[Math.floor(random() * 4)]);
    const next = old.filter(() => random() > 0.2).flatMap((l) => (random() < 0.2 ? [l, "x"] : [l]));
    assert.deepEqual(apply(old, await diffLines(old, next)), next, JSON.stringify({ old, next }));
  }
});

Deno.test("a diff past the edit limit shows the changed middle removed, then added, with the common ends kept", async () => {
  const middle = MAX_EDIT_LENGTH;
  const ends = ["h1", "h2", "h3", "h4", "h5"];
  const old = [...ends, ...Array.from({ length: middle }, (_, i) => `old ${i}`), ...ends];
  const next = [...ends, ...Array.from({ length: middle }, (_, i) => `new ${i}`), ...ends];
  const hunks = await diffLines(old, next);
  assert.equal(hunks.length, 1);
  const [h] = hunks;
  assert.deepEqual([h.oldStart, h.oldLines, h.newStart, h.newLines], [3, middle + 6, 3, middle + 6]);
  assert.deepEqual(h.lines.slice(0, 4).map((l) => l.op + l.text), [" h3", " h4", " h5", "-old 0"]);
  assert.equal(h.lines[3 + middle].op + h.lines[3 + middle].text, "+new 0");
  assert.deepEqual(apply(old, hunks), next);
});

import assert from "node:assert/strict";
import { comparePaths, orderByKeys, pathSortKey, sortByPath } from "../../src/search/ripgrep.ts";

Deno.test("sortByPath orders as comparePaths does (slash first), keeping duplicates", () => {
  const parts = ["a", "a-b", "a.b", "a b", "a/b", "b", "é", "A", "_x", "a.b/c", "a!"];
  let seed = 7;
  const pick = () => parts[(seed = (seed * 48271) % 2147483647) % parts.length];
  const paths = Array.from(
    { length: 2000 },
    () => [pick(), pick(), pick()].slice(0, 1 + (seed % 3)).join("/"),
  );
  const lines = paths.map((p, i) => `${p}:${i}`);
  const got = sortByPath(lines, (l) => l.slice(0, l.lastIndexOf(":")));
  const want = [...lines].sort((x, y) =>
    comparePaths(x.slice(0, x.lastIndexOf(":")), y.slice(0, y.lastIndexOf(":"))) ||
    Number(x.slice(x.lastIndexOf(":") + 1)) - Number(y.slice(y.lastIndexOf(":") + 1))
  );
  assert.deepEqual(got, want);
  // the same order from keys built one line at a time
  const keys = lines.map((l, i) => pathSortKey(l.slice(0, l.lastIndexOf(":")), i));
  assert.deepEqual(orderByKeys(lines, keys), want);
  assert.deepEqual(sortByPath([], String), []);
  assert.deepEqual(sortByPath(["x"], String), ["x"]);
});

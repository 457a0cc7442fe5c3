import assert from "node:assert/strict";
import { NewestPaths } from "../../src/search/newest.ts";

Deno.test("NewestPaths keeps what a full sort by mtime (newest first, ties by path) would put first", () => {
  let seed = 7;
  const random = () => (seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31) / 2 ** 31;
  for (let round = 0; round < 300; round++) {
    const n = Math.floor(random() * 400);
    const limit = Math.floor(random() * 120);
    const spread = round % 3 === 0 ? 3 : 1_000_000; // few distinct mtimes: ties decide
    const files = Array.from({ length: n }, (_, i) => ({
      relDir: random() < 0.2 ? "" : `d${Math.floor(random() * 9)}`,
      name: `f${i}.ts`,
      m: Math.floor(random() * spread),
    }));
    const top = new NewestPaths(limit);
    for (const f of files) top.offer(f.m, f.relDir, f.name);
    const want = files.map((f) => ({ m: f.m, path: f.relDir ? `${f.relDir}/${f.name}` : f.name }))
      .sort((a, b) => b.m - a.m || (a.path < b.path ? -1 : 1))
      .slice(0, limit)
      .map((e) => e.path);
    assert.deepEqual(top.paths(), want, `round ${round}: ${n} files, limit ${limit}`);
    assert.equal(top.total, n);
  }
});

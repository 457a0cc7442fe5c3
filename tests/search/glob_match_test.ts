import assert from "node:assert/strict";
import { globMatcher, globToRegExp } from "../../src/search/glob_match.ts";

const TAILS = [
  "*.ts",
  "package.json",
  "*",
  "*.{ts,tsx}",
  "*.d.ts",
  "*.[jt]s",
  "x*",
  "*\\*",
  ".env",
  "*.ts}",
  "*,ts",
  "*.TS",
  "a?.ts",
];
const NAMES = [
  "a.ts",
  ".ts",
  "a.tsx",
  "A.TS",
  "package.json",
  "xpackage.json",
  "b.d.ts",
  "x",
  "a*",
  ".env",
  "a.ts}",
  "a,ts",
  "ü.ts",
  "a.ts.map",
  "a b.ts",
  "ab.ts",
];

Deno.test("globMatcher tests a name exactly as the glob's RegExp does, on every fast path", () => {
  for (const tail of TAILS) {
    const re = globToRegExp(tail);
    for (const pattern of [tail, `**/${tail}`, `src/**/${tail}`]) {
      const m = globMatcher(pattern);
      for (const name of NAMES) {
        const dir = pattern.startsWith("src/") ? "src/deep" : pattern.startsWith("**/") ? "a/b" : "";
        assert.equal(m.test(dir, name), re.test(name), `${pattern} on ${dir}/${name}`);
      }
    }
  }
});

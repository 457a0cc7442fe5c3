/** A small tree for the Glob and Grep tests: a git repo with nested ignore files, hidden files and context-rich text. */
import { locateRipgrep } from "../../src/search/ripgrep.ts";
import type { TempWorkspace } from "../_helpers/workspace.ts";

/** The rg binary the tests compare against. */
export const RG: string = locateRipgrep();

/** Writes the fixture into `ws` and gives files distinct mtimes (older first in `ORDER`). */
export async function buildFixture(ws: TempWorkspace): Promise<void> {
  await Deno.mkdir(ws.path(".git", "info"), { recursive: true });
  await ws.write(".git/HEAD", "ref: refs/heads/main\nTODO in git\n");
  await ws.write(".gitignore", "node_modules\n*.log\n/build/\n!keep.log\n");
  await ws.write(".ignore", "secret.txt\n");
  await ws.write("secret.txt", "TODO secret\n");
  await ws.write("keep.log", "TODO keep this log\n");
  await ws.write("debug.log", "TODO ignored log\n");
  await ws.write("build/out.js", "TODO built\n");
  await ws.write("node_modules/pkg/index.js", "TODO dependency\n");
  await ws.write(".hidden/conf.ts", "export const todo = 'TODO hidden';\n");
  await ws.write("README.md", "# Title\n\nA TODO list.\n-dash line here\n");
  await ws.write(
    "src/app.ts",
    [
      "import x from './x';",
      "// TODO: first",
      "const a = 1;",
      "const b = 2;",
      "const c = 3;",
      "// todo: lower",
      "function f() {",
      "  return a + b;",
      "}",
      "// TODO: last",
    ]
      .join("\n") + "\n",
  );
  await ws.write("src/lib/util.ts", "export function util() {\n  // TODO util\n  return 42;\n}\n");
  await ws.write("src/lib/util.test.ts", "import { util } from './util.ts';\n// no match here\n");
  await ws.write("src/lib/.gitignore", "*.gen.ts\n");
  await ws.write("src/lib/types.gen.ts", "// TODO generated\n");
  await ws.write("src/a.b/file.ts", "TODO dotted folder\n");
  await ws.write("docs/guide.md", "Start\nfunction one\nTODO middle\nend\n");
  await ws.write("docs/deep/nested/page.md", "TODO deep\nline two\n");
  await ws.write("py/main.py", "def main():\n    pass  # TODO python\n");
  await ws.write("multi.txt", "alpha\nbeta\ngamma\nalpha\nbeta\n");
  await ws.write("long.txt", `${"x".repeat(600)}TODO${"y".repeat(20)}\n`);
  const order = ORDER;
  const base = Date.now() / 1000 - 10_000;
  for (
    const f of [
      ".gitignore",
      ".ignore",
      "src/lib/.gitignore",
      "secret.txt",
      "debug.log",
      "build/out.js",
      "node_modules/pkg/index.js",
      "src/lib/types.gen.ts",
    ]
  ) {
    await Deno.utime(ws.path(f), base - 100, base - 100);
  }
  for (let k = 0; k < order.length; k++) await Deno.utime(ws.path(order[k]), base + k * 10, base + k * 10);
}

/** Files in the fixture from oldest to newest. */
export const ORDER: readonly string[] = [
  "README.md",
  "src/app.ts",
  "src/lib/util.ts",
  "src/lib/util.test.ts",
  "src/a.b/file.ts",
  "docs/guide.md",
  "docs/deep/nested/page.md",
  "py/main.py",
  "multi.txt",
  "long.txt",
  ".hidden/conf.ts",
  "keep.log",
  ".gitignore",
];

/** Runs raw rg in `cwd` with stdin closed and returns its stdout lines. */
export async function rawRg(cwd: string, args: string[]): Promise<string[]> {
  const out = await new Deno.Command(RG, { args, cwd, stdin: "null", stdout: "piped", stderr: "piped" })
    .output();
  const text = new TextDecoder().decode(out.stdout);
  return text === "" ? [] : text.replace(/\n$/, "").split("\n");
}

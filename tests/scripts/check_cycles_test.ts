import assert from "node:assert/strict";
import { fromFileUrl } from "../_helpers/paths.ts";
import { tempWorkspace } from "../_helpers/workspace.ts";

const script = fromFileUrl(new URL("../../scripts/check_cycles.ts", import.meta.url));

/** Runs the check in `cwd` on `entries`; its exit code and both streams together. */
async function checkCycles(cwd: string, ...entries: string[]): Promise<{ code: number; text: string }> {
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", "--no-config", script, ...entries],
    cwd,
    stdout: "piped",
    stderr: "piped",
  }).output();
  const decode = (b: Uint8Array) => new TextDecoder().decode(b);
  return { code: out.code, text: decode(out.stdout) + decode(out.stderr) };
}

Deno.test("The cycle check fails on two files that import each other, naming both", async () => {
  await using ws = await tempWorkspace();
  await ws.write("main.ts", 'import { a } from "./lib/a.ts";\nconsole.log(a);\n');
  await ws.write("lib/a.ts", 'import { b } from "./b.ts";\nexport const a = () => b;\n');
  await ws.write("lib/b.ts", 'import type { a } from "./a.ts";\nexport const b: typeof a | 1 = 1;\n');
  const { code, text } = await checkCycles(ws.dir, "main.ts");
  assert.equal(code, 1, text);
  assert.match(text, /lib\/a\.ts → lib\/b\.ts → lib\/a\.ts/);
  assert.doesNotMatch(text, /main\.ts →/);
});

Deno.test("The cycle check fails on folders that import each other without a file cycle", async () => {
  await using ws = await tempWorkspace();
  await ws.write("main.ts", 'import { low } from "./src/low/low.ts";\nconsole.log(low);\n');
  await ws.write(
    "src/low/low.ts",
    'import { setting } from "../high/config.ts";\nexport const low = setting;\n',
  );
  await ws.write("src/low/base.ts", "export const base = 1;\n");
  await ws.write(
    "src/high/config.ts",
    'import { base } from "../low/base.ts";\nexport const setting = base;\n',
  );
  const { code, text } = await checkCycles(ws.dir, "main.ts");
  assert.equal(code, 1, text);
  assert.match(text, /folders src\/high → src\/low → src\/high/);
  assert.match(text, /src\/low\/low\.ts → src\/high\/config\.ts/);
});

Deno.test("The cycle check passes an acyclic graph and names what it read", async () => {
  await using ws = await tempWorkspace();
  await ws.write(
    "main.ts",
    'import { a } from "./lib/a.ts";\nimport { b } from "./lib/b.ts";\nconsole.log(a, b);\n',
  );
  await ws.write("lib/a.ts", 'import { b } from "./b.ts";\nexport const a = b + 1;\n');
  await ws.write("lib/b.ts", "export const b = 1;\n");
  const { code, text } = await checkCycles(ws.dir, "main.ts");
  assert.equal(code, 0, text);
  assert.match(text, /No import cycles among 3 modules in 2 folders \(from main\.ts\)/);
});

Deno.test("The cycle check reports an entry it cannot read instead of passing", async () => {
  await using ws = await tempWorkspace();
  const { code, text } = await checkCycles(ws.dir, "missing.ts");
  assert.equal(code, 2, text);
  assert.match(text, /Cannot check import cycles: deno info failed for "missing\.ts"/);
});

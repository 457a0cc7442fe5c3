import assert from "node:assert/strict";
import { fileURLToPath } from "node:url";
import { runTool } from "../../../src/tool/run_tool.ts";
import { ToolRegistry } from "../../../src/tool/registry.ts";
import { createGrepTool, type GrepResult } from "../../../src/tools/grep/grep.ts";
import { nestsQuantifiers } from "../../../src/tools/grep/run.ts";
import { tempWorkspace } from "../../_helpers/workspace.ts";

// P8, every call ends: a catastrophic regex (exponential backtracking) must not hold a call past its
// timeout. With rg allowed Grep hands every search to rg; the in-process engine runs in a worker
// that is terminated at the deadline; without read access to the worker's module it refuses the class.

const CATASTROPHIC = "(a+)+$";
const LINES = Array.from({ length: 20 }, () => "a".repeat(40) + "!").join("\n") + "\n";

/** Fails the test instead of hanging it when `p` does not settle within `ms`. */
function within<T>(ms: number, p: Promise<T>): Promise<T> {
  const signal = AbortSignal.timeout(ms);
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(new Error(`did not return within ${ms} ms`));
    signal.addEventListener("abort", onAbort, { once: true });
    p.then(resolve, reject).finally(() => signal.removeEventListener("abort", onAbort));
  });
}

Deno.test("Grep's in-process engine stops a catastrophic regex at the call's timeout", async () => {
  await using ws = await tempWorkspace();
  await Deno.writeTextFile(ws.path("bomb.txt"), LINES);
  const reg = new ToolRegistry([createGrepTool({ engine: "in-process" })]);
  const r = await within(
    15_000,
    runTool(reg, { name: "Grep", input: { pattern: CATASTROPHIC, path: ws.path("bomb.txt") } }, {
      session: ws.session,
      timeoutMs: 2000,
    }),
  );
  assert.equal(r.ok, false);
  assert.equal(r.error?.code, "timeout");
  assert.match(r.text, /^Error: .*timed out after 2000 ms/);
});

Deno.test("Grep's in-process engine stops a catastrophic regex at its time budget with a partial result", async () => {
  await using ws = await tempWorkspace();
  await Deno.writeTextFile(ws.path("bomb.txt"), LINES);
  const reg = new ToolRegistry([createGrepTool({ engine: "in-process", timeBudgetMs: 1000 })]);
  const r = await within(
    15_000,
    runTool(reg, { name: "Grep", input: { pattern: CATASTROPHIC, path: ws.path("bomb.txt") } }, {
      session: ws.session,
    }),
  );
  assert.ok(r.ok, r.text);
  const data = r.data as GrepResult;
  assert.equal(data.partial, "time_budget");
  assert.match(r.text, /stopped at its time budget/);
});

Deno.test("Grep hands one small file to rg when rg may run, so a catastrophic regex ends", async () => {
  await using ws = await tempWorkspace();
  await Deno.writeTextFile(ws.path("bomb.txt"), LINES);
  const reg = new ToolRegistry([createGrepTool()]);
  const r = await within(
    15_000,
    runTool(reg, { name: "Grep", input: { pattern: CATASTROPHIC, path: ws.path("bomb.txt") } }, {
      session: ws.session,
      timeoutMs: 2000,
    }),
  );
  assert.ok(r.ok, r.text);
  assert.equal((r.data as GrepResult).engine, "ripgrep");
});

Deno.test("Grep without a worker refuses nested repetition in process, naming rg", async () => {
  await using ws = await tempWorkspace();
  await Deno.writeTextFile(ws.path("bomb.txt"), LINES);
  const child = fileURLToPath(new URL("./_grep_child.ts", import.meta.url));
  const input = JSON.stringify({ pattern: CATASTROPHIC, path: ws.path("bomb.txt") });
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["run", "--no-prompt", `--allow-read=${ws.dir}`, child, ws.dir, input],
    stdout: "piped",
    stderr: "piped",
    signal: AbortSignal.timeout(30_000),
  }).output();
  assert.ok(out.success, new TextDecoder().decode(out.stderr));
  const result = JSON.parse(new TextDecoder().decode(out.stdout));
  assert.equal(result.ok, false);
  assert.match(result.text, /^Error: Cannot search for "\(a\+\)\+\$" in process: .*ripgrep/);
});

Deno.test("nestsQuantifiers finds repeated groups that repeat, and nothing else", () => {
  for (const p of ["(a+)+$", "(\\w*)*", "((ab)+){2,}", "(?:x+)*y", "(a|b+)+"]) {
    assert.ok(nestsQuantifiers(p), p);
  }
  for (const p of ["TODO", "(foo|bar)+", "a+b*", "(a)+", "[(a+)]+", "\\(a+\\)+", "(a+)"]) {
    assert.ok(!nestsQuantifiers(p), p);
  }
});

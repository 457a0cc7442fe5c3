/**
 * `--confirm none|safe|all` reaches the decision: `none` always confirms,
 * `safe` (the default) auto-approves reads, `all` auto-approves everything but
 * what only a person may approve.
 */
import assert from "node:assert/strict";
import { resolveConfig } from "../../src/cli/options.ts";
import { type CliIo, UsageError } from "../../src/cli/command.ts";
import { fromFileUrl } from "../_helpers/paths.ts";
import { tempWorkspace } from "../_helpers/workspace.ts";

const CLI = fromFileUrl(new URL("../../cli.ts", import.meta.url));
const SCRIBBLE = fromFileUrl(new URL("../_helpers/mutating_tool.ts", import.meta.url));

async function paddock(args: string[], cwd: string) {
  const { code, stderr } = await new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", CLI, "exec", "--quiet", ...args],
    cwd,
    stdin: "null",
    stdout: "null",
    stderr: "piped",
    env: { HOME: cwd },
  }).output();
  return { code, err: new TextDecoder().decode(stderr) };
}

Deno.test("paddock exec --confirm: all runs a write unasked, none asks even for a read, safe is the default", async () => {
  await using ws = await tempWorkspace();
  await ws.write("a.txt", "hello\n");
  const note = ["--tools", SCRIBBLE, "Scribble", '{"text":"a"}'];
  const all = await paddock(["--confirm", "all", ...note], ws.dir);
  assert.equal(all.code, 0, all.err);
  assert.equal(await Deno.readTextFile(ws.path("notes.txt")), "a\n");
  const safe = await paddock(note, ws.dir);
  assert.equal(safe.code, 1);
  assert.match(safe.err, /needs approval, and no approver is set/);
  const read = ["Read", JSON.stringify({ file_path: ws.path("a.txt") })];
  assert.equal((await paddock(read, ws.dir)).code, 0, "safe auto-approves reads");
  const none = await paddock(["--confirm", "none", ...read], ws.dir);
  assert.equal(none.code, 1);
  assert.match(none.err, /"Read" is ReadOnly and needs approval/);
  const bad = await paddock(["--confirm", "yolo", ...read], ws.dir);
  assert.equal(bad.code, 2);
  assert.match(bad.err, /--confirm must be one of none, safe, all, got "yolo"/);
});

Deno.test("--confirm all still asks for a protected path", async () => {
  await using ws = await tempWorkspace();
  const r = await paddock([
    "--confirm",
    "all",
    "Write",
    JSON.stringify({ file_path: ws.path(".mcp.json"), content: "{}" }),
  ], ws.dir);
  assert.equal(r.code, 1);
  assert.match(r.err, /protected path/);
  await assert.rejects(Deno.stat(ws.path(".mcp.json")));
});

Deno.test("resolveConfig passes --confirm on as the runtime's preset, and leaves it unset by default", async () => {
  await using ws = await tempWorkspace();
  const io: CliIo = {
    out: () => {},
    err: () => {},
    stdin: new ReadableStream(),
    isTerminal: false,
    env: { HOME: ws.dir },
    cwd: ws.dir,
    signal: new AbortController().signal,
  };
  assert.equal(resolveConfig({ confirm: "none" }, io).runtime.preset, "none");
  assert.equal(resolveConfig({}, io).runtime.preset, undefined);
  assert.throws(() => resolveConfig({ confirm: "yes" }, io), UsageError);
});

import assert from "node:assert/strict";
import { toDenoFlags } from "../../src/permissions/deno_flags.ts";
import { createRuntime } from "../../src/runtime/runtime.ts";
import { createGlobTool } from "../../src/tools/glob.ts";
import { readTool } from "../../src/tools/read/read.ts";
import { searchWorkerFiles, stopWalkHelper, walkHelper } from "../../src/search/walk_helper.ts";
import { tempWorkspace } from "../_helpers/workspace.ts";

Deno.test("createRuntime starts the walk helper for Glob and grants read of the worker modules", async () => {
  await using ws = await tempWorkspace();
  await stopWalkHelper();
  try {
    // without Glob: no thread, no extra read
    await using plain = createRuntime({ roots: [ws.dir], tools: [readTool], walkHelper: true });
    assert.equal(walkHelper(), undefined);
    const readFlag = (flags: string[]) => flags.find((f) => f.startsWith("--allow-read=")) ?? "";
    assert.ok(!readFlag(toDenoFlags(plain.policy())).includes("walk_worker.ts"));
    // with Glob: started, and the least-privilege line lets its modules load
    await using rt = createRuntime({ roots: [ws.dir], tools: [createGlobTool()], walkHelper: true });
    const read = readFlag(toDenoFlags(rt.policy())).slice("--allow-read=".length).split(",");
    for (const file of searchWorkerFiles()) assert.ok(read.includes(file), file);
    for (let i = 0; i < 200 && !walkHelper(); i++) await new Promise((r) => setTimeout(r, 10));
    assert.ok(walkHelper()?.ready, "the helper came up");
    await ws.write("a/b.ts", "x");
    const r = await rt.run("Glob", { pattern: "**/*.ts" });
    assert.ok(r.ok, r.text);
    assert.equal(r.text, ws.path("a/b.ts"));
  } finally {
    await stopWalkHelper();
  }
});

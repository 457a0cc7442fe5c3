// Child of walk_helper_test.ts: starts the walk helper (if it may), runs one
// Glob on the tree named by the first argument, prints what happened and then
// simply returns: the process must exit on its own.
import { runTool } from "../../src/tool/run_tool.ts";
import { ToolRegistry } from "../../src/tool/registry.ts";
import { Session } from "../../src/session/session.ts";
import { createGlobTool, type GlobResult } from "../../src/tools/glob.ts";
import { startWalkHelper } from "../../src/search/walk_helper.ts";

const root = Deno.args[0];
const helper = startWalkHelper();
await helper?.whenReady;
const registry = new ToolRegistry([createGlobTool({ globLimit: 1_000_000 })]);
const r = await runTool(registry, { name: "Glob", input: { pattern: "**/*", path: root } }, {
  session: new Session({ roots: [root], outputDir: Deno.args[1] }),
});
console.log(
  JSON.stringify({
    started: helper?.ready ?? false,
    ok: r.ok,
    numFiles: (r.data as GlobResult | undefined)?.numFiles,
  }),
);

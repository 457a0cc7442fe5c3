/**
 * One Glob call in a new process, as `paddock run` makes it: the walk helper
 * started and ready, then the first call of the process's only session, with
 * no code compiled yet by earlier calls. Prints the call's time (ms);
 * `search_medians.ts` runs it per round.
 *
 * `deno run -A bench/_fresh_first.ts <root> <pattern>`
 *
 * @module
 */
import { ToolRegistry } from "../src/registry/registry.ts";
import { runTool } from "../src/registry/run_tool.ts";
import { Session } from "../src/registry/session.ts";
import { createGlobTool } from "../src/tools/glob.ts";
import { startWalkHelper, stopWalkHelper } from "../src/tools/_shared/walk_helper.ts";

const [root, pattern] = Deno.args;
await startWalkHelper()?.whenReady;
const registry = new ToolRegistry([createGlobTool()]);
const started = performance.now();
const result = await runTool(registry, { name: "Glob", input: { pattern, path: root } }, {
  session: new Session({ roots: [root] }),
});
const ms = performance.now() - started;
if (!result.ok) throw new Error(result.text);
console.log(ms);
await stopWalkHelper();

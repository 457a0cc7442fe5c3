/**
 * One Glob call in a new process, as `paddock run` makes it: the walk helper
 * started and ready, then the first call of the process's only session, with
 * no code compiled yet by earlier calls. Prints the call's time (ms);
 * `search_medians.ts` runs it per round.
 *
 * With `ahead`, the session's workspace is first indexed ahead on the helper
 * thread (`indexAhead`, as `paddock run` and `chat` do while the model
 * thinks) and the call comes once that is done; it then prints the call's
 * time and the walk ahead's.
 *
 * `deno run -A bench/_fresh_first.ts <root> <pattern> [ahead]`
 *
 * @module
 */
import { ToolRegistry } from "../src/tool/registry.ts";
import { runTool } from "../src/tool/run_tool.ts";
import { Session } from "../src/session/session.ts";
import { createGlobTool } from "../src/tools/glob.ts";
import { indexAhead } from "../src/search/index_ahead.ts";
import { startWalkHelper, stopWalkHelper } from "../src/search/walk_helper.ts";

const [root, pattern, mode] = Deno.args;
await startWalkHelper()?.whenReady;
const registry = new ToolRegistry([createGlobTool()]);
const session = new Session({ roots: [root] });
let aheadMs: number | undefined;
if (mode === "ahead") {
  const t = performance.now();
  if (!await indexAhead(session)?.done) throw new Error("the walk ahead did not complete");
  aheadMs = performance.now() - t;
}
const started = performance.now();
const result = await runTool(registry, { name: "Glob", input: { pattern, path: root } }, { session });
const ms = performance.now() - started;
if (!result.ok) throw new Error(result.text);
console.log(aheadMs === undefined ? ms : `${ms} ${aheadMs}`);
await session.close();
await stopWalkHelper();

/** Runs one Glob call in a child process started with only --allow-read, and prints the result as JSON. */
import { ToolRegistry } from "../../src/tool/registry.ts";
import { runTool } from "../../src/tool/run_tool.ts";
import { Session } from "../../src/session/session.ts";
import { createGlobTool } from "../../src/tools/glob.ts";

const [dir, input] = Deno.args;
const session = new Session({ roots: [dir], outputDir: `${dir}/.out` });
const r = await runTool(new ToolRegistry([createGlobTool()]), { name: "Glob", input: JSON.parse(input) }, {
  session,
});
console.log(JSON.stringify({ ok: r.ok, text: r.text, data: r.data }));

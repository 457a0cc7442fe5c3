/**
 * Runs one Bash call in a child process and prints its result as JSON:
 * `deno run <flags> bash_child.ts <root> <outputDir> <command> [timeoutMs]`.
 * Used with a capped V8 heap (bounded memory) and with `--allow-run=bash`
 * only (the group kill through bash).
 */
import { runTool } from "../../src/tool/run_tool.ts";
import { ToolRegistry } from "../../src/tool/registry.ts";
import { Session } from "../../src/session/session.ts";
import { createBashTool } from "../../src/tools/bash/bash.ts";

const [root, outputDir, command, timeout] = Deno.args;
const session = new Session({ roots: [root], outputDir, mode: "bypassPermissions" });
const registry = new ToolRegistry([createBashTool({ ledgerDir: false, graceMs: 500, sandbox: false })]);
let streamed = 0;
const r = await runTool(registry, {
  name: "Bash",
  input: { command, ...(timeout ? { timeout: Number(timeout) } : {}) },
}, { session, onEvent: (e) => e.type === "tool_output" && (streamed += e.chunk.length) });
console.log(JSON.stringify({ ok: r.ok, text: r.text, data: r.data, streamed }));
await session.close();

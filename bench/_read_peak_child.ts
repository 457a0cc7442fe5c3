// Runs one Read through the runner in a fresh process and prints its wall
// time and the process's peak RSS (VmHWM), so the memory figure is the true
// peak, not a sample.  Usage: deno run -A bench/_read_peak_child.ts <file> <offset> <limit>
import { dirname } from "node:path";
import { runTool } from "../src/tool/run_tool.ts";
import { ToolRegistry } from "../src/tool/registry.ts";
import { Session } from "../src/session/session.ts";
import { readTool } from "../src/tools/read/read.ts";

const [file, offset, limit] = Deno.args;
const peak = () => Number(/VmHWM:\s+(\d+) kB/.exec(Deno.readTextFileSync("/proc/self/status"))![1]) / 1024;
const registry = new ToolRegistry([readTool]);
const session = new Session({ roots: [dirname(file)], outputDir: Deno.makeTempDirSync() });
const before = peak();
const t0 = performance.now();
const r = await runTool(registry, {
  name: "Read",
  input: { file_path: file, offset: Number(offset), limit: Number(limit) },
}, { session });
const ms = performance.now() - t0;
if (!r.ok) throw new Error(r.text);
console.log(
  JSON.stringify({
    ms: Math.round(ms),
    peakBeforeMiB: Math.round(before),
    peakMiB: Math.round(peak()),
    firstLine: r.text.split("\n")[0],
  }),
);

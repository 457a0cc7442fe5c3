/**
 * A child runtime for the orphan tests: `deno run -A task_child.ts <root> <outputDir>`.
 * Starts two background Bash tasks, prints one JSON line with their process
 * groups, then waits. "exit\n" on stdin makes it call Deno.exit(0).
 */
import { createRuntime } from "../../src/runtime/runtime.ts";
import { installShutdownHandlers } from "../../src/tasks/shutdown.ts";
import { createBashTool } from "../../src/tools/bash/bash.ts";
import { taskOutputTool } from "../../src/tools/task_output.ts";
import { taskStopTool } from "../../src/tools/task_stop.ts";

const [root, outputDir] = Deno.args;
const runtime = createRuntime({
  roots: [root],
  outputDir,
  mode: "bypassPermissions",
  tools: [createBashTool({ graceMs: 500, sandbox: false }), taskOutputTool, taskStopTool],
});
installShutdownHandlers(runtime);
const pgids: number[] = [];
for (const command of ["sleep 300", "sleep 301 & sleep 302; wait"]) {
  const r = await runtime.run("Bash", { command, run_in_background: true });
  if (!r.ok) throw new Error(r.text);
  pgids.push((r.data as { pgid: number }).pgid);
}
console.log(JSON.stringify({ pgids }));
const keepAlive = setInterval(() => {}, 60_000);
for await (const chunk of Deno.stdin.readable) {
  if (new TextDecoder().decode(chunk).includes("exit")) Deno.exit(0);
}
clearInterval(keepAlive);

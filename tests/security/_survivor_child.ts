/**
 * A runtime that starts one background Bash task and then waits to be
 * killed, for the P8 crash test:
 * `deno run -A _survivor_child.ts <root> <outputDir> <containment> <sandbox 0|1> <command>`.
 * Prints one JSON line (the Bash result) once the task runs.
 */
import { createRuntime } from "../../src/runtime/runtime.ts";
import type { ContainmentChoice } from "../../src/tasks/containment.ts";
import { createBashTool } from "../../src/tools/bash/bash.ts";

const [root, outputDir, containment, sandbox, command] = Deno.args;
const runtime = createRuntime({
  roots: [root],
  outputDir,
  mode: "bypassPermissions",
  tools: [
    createBashTool({ graceMs: 300, containment: containment as ContainmentChoice, sandbox: sandbox === "1" }),
  ],
});
const r = await runtime.run("Bash", { command, run_in_background: true });
console.log(JSON.stringify({ ok: r.ok, text: r.text }));
setInterval(() => {}, 60_000); // until the test kills it with SIGKILL

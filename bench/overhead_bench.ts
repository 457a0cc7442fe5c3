// Runner overhead for a trivial tool: validate, permit, hooks, format.
// deno bench -A bench/overhead_bench.ts
import { z } from "zod";
import { defineTool, runTool, Session, ToolRegistry } from "../mod.ts";

const tool = defineTool({
  name: "Noop",
  description: "Does nothing",
  sideEffect: "ReadOnly",
  input: z.strictObject({
    file_path: z.string().describe("A path"),
    limit: z.number().int().optional().describe("n"),
  }),
  execute: (input) => Promise.resolve(input.file_path),
});
const registry = new ToolRegistry([tool]);
const session = new Session({ roots: [Deno.cwd()], outputDir: Deno.makeTempDirSync() });
const input = { file_path: "/tmp/x", limit: 10 };
const hooks = {
  preToolUse: [() => undefined],
  postToolUse: [() => undefined],
};

Deno.bench({ name: "direct execute (no runner)", group: "overhead", baseline: true }, async () => {
  await tool.execute(tool.input.parse(input), {} as never);
});

Deno.bench({ name: "runTool, object input", group: "overhead" }, async () => {
  await runTool(registry, { name: "Noop", input }, { session });
});

Deno.bench({ name: "runTool, JSON string input + hooks", group: "overhead" }, async () => {
  await runTool(registry, { name: "Noop", input: '{"file_path":"/tmp/x","limit":10}' }, { session, hooks });
});

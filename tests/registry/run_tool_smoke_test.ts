import assert from "node:assert/strict";
import { z } from "zod";
import { defineTool, runTool, ToolRegistry } from "../../mod.ts";
import { tempWorkspace } from "../_helpers/workspace.ts";

Deno.test("runTool runs a valid call and reports invalid JSON", async () => {
  await using ws = await tempWorkspace();
  const reg = new ToolRegistry([defineTool({
    name: "Add",
    description: "Adds",
    sideEffect: "None",
    input: z.strictObject({ a: z.number().describe("a"), b: z.number().describe("b") }),
    execute: (i) => Promise.resolve(String(i.a + i.b)),
  })]);
  const ok = await runTool(reg, { name: "Add", input: { a: 1, b: 2 } }, { session: ws.session });
  assert.equal(ok.text, "3");
  const bad = await runTool(reg, { name: "Add", input: "{nope" }, { session: ws.session });
  assert.match(bad.text, /^Error: Input for Add is not valid JSON/);
  const wrong = await runTool(reg, { name: "Add", input: { a: "x", c: 1 } }, { session: ws.session });
  console.log(wrong.text);
});

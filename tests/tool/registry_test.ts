import assert from "node:assert/strict";
import { z } from "zod";
import { defineTool, runTool, ToolRegistry } from "../../mod.ts";
import { fromAiSdkTools, fromLangChainTools } from "../../src/tool/mod.ts";
import { echoTool } from "../_helpers/tools.ts";
import { tempWorkspace } from "../_helpers/workspace.ts";

Deno.test("Registry refuses duplicate names and alias names", () => {
  const reg = new ToolRegistry([echoTool("A")]);
  assert.throws(() => reg.register(echoTool("A")), /already registered/);
  assert.throws(() => reg.register(echoTool("Task")), /alias of "Agent"/);
});

Deno.test("defineTool refuses names the wire cannot carry", () => {
  assert.throws(() => echoTool("has space"), /Invalid tool name/);
  assert.throws(() => echoTool("x".repeat(65)), /Invalid tool name/);
});

Deno.test("Registry resolves aliases to canonical tools", () => {
  const reg = new ToolRegistry([echoTool("Agent"), echoTool("TaskStop"), echoTool("TaskOutput")]);
  assert.equal(reg.get("Task")?.name, "Agent");
  assert.equal(reg.get("KillShell")?.name, "TaskStop");
  assert.equal(reg.get("BashOutput")?.name, "TaskOutput");
  assert.equal(reg.get("AgentOutput")?.name, "TaskOutput");
  assert.equal(reg.has("ListMcpResourcesTool"), false);
});

Deno.test("Registry lists names in registration order and unregisters by prefix", () => {
  const reg = new ToolRegistry([
    echoTool("B"),
    echoTool("mcp__s__one"),
    echoTool("A"),
    echoTool("mcp__s__two"),
  ]);
  assert.deepEqual(reg.names(), ["B", "mcp__s__one", "A", "mcp__s__two"]);
  let changes = 0;
  reg.onChange(() => changes++);
  assert.deepEqual(reg.unregisterPrefix("mcp__s__"), ["mcp__s__one", "mcp__s__two"]);
  assert.deepEqual(reg.names(), ["B", "A"]);
  assert.equal(changes, 2);
  assert.equal(reg.unregister("nope"), false);
});

Deno.test("Disabled tools are hidden from the model and refused", async () => {
  await using ws = await tempWorkspace();
  const reg = new ToolRegistry([echoTool("A"), echoTool("B")]);
  reg.disable("B", "needs --allow-net");
  assert.deepEqual(reg.definitions().map((d) => d.function.name), ["A"]);
  const r = await runTool(reg, { name: "B", input: { text: "x" } }, { session: ws.session });
  assert.equal(r.ok, false);
  assert.match(r.text, /^Error: Tool "B" is disabled: needs --allow-net/);
  reg.enable("B");
  assert.equal(reg.definitions().length, 2);
});

Deno.test("Filtered views keep what the filter asks for", () => {
  const reg = new ToolRegistry([
    echoTool("R", "ReadOnly"),
    echoTool("N", "None"),
    echoTool("M", "Mutating"),
    echoTool("X", "Execute"),
    echoTool("W", "Network"),
    echoTool("Agent", "Spawns"),
  ]);
  reg.allow("R");
  assert.deepEqual(reg.view({ readOnly: true }).names(), ["R", "N"]);
  assert.deepEqual(reg.view({ excludeDangerous: true }).names(), ["R", "N"]);
  assert.deepEqual(reg.view({ include: ["M", "Task"] }).names(), ["M", "Agent"]);
  assert.deepEqual(reg.view({ exclude: ["Task", "X"] }).names(), ["R", "N", "M", "W"]);
  assert.ok(reg.view({ readOnly: true }).allowed.has("R"));
});

Deno.test("Definitions are OpenAI-format with compact schemas", () => {
  const reg = new ToolRegistry([defineTool({
    name: "Count",
    description: "Counts",
    sideEffect: "None",
    input: z.strictObject({
      n: z.number().int().describe("How many"),
      mode: z.enum(["a", "b"]).optional().describe("Mode"),
    }),
    execute: () => Promise.resolve("ok"),
  })]);
  const [def] = reg.definitions();
  assert.equal(def.type, "function");
  assert.equal(def.function.name, "Count");
  assert.deepEqual(def.function.parameters, {
    type: "object",
    properties: {
      n: { type: "integer", description: "How many" },
      mode: { type: "string", enum: ["a", "b"], description: "Mode" },
    },
    required: ["n"],
    additionalProperties: false,
  });
});

Deno.test("Adapters register AI SDK and LangChain style tools", async () => {
  await using ws = await tempWorkspace();
  const reg = new ToolRegistry([
    ...fromAiSdkTools({
      double: {
        description: "Doubles",
        inputSchema: z.object({ n: z.number() }),
        execute: (i: { n: number }) => i.n * 2,
      },
    }, "None"),
    ...fromLangChainTools([{
      name: "shout",
      description: "Shouts",
      schema: z.object({ s: z.string() }),
      invoke: (i: { s: string }) => i.s.toUpperCase(),
    }], "None"),
  ]);
  assert.equal(
    (await runTool(reg, { name: "double", input: { n: 21 } }, { session: ws.session })).text,
    "42",
  );
  assert.equal(
    (await runTool(reg, { name: "shout", input: { s: "hi" } }, { session: ws.session })).text,
    "HI",
  );
});

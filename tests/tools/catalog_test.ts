import assert from "node:assert/strict";
import { type BuiltinToolOptions, builtinTools } from "../../src/tools/mod.ts";
import { lazyBuiltinTools } from "../../src/tools/catalog.ts";
import { createRuntime } from "../../src/runtime/runtime.ts";
import { ToolRegistry } from "../../src/tool/registry.ts";
import { tempWorkspace } from "../_helpers/workspace.ts";

const OPTION_SETS: BuiltinToolOptions[] = [
  {},
  { search: { engine: "in-process" }, bash: { sandbox: false } },
  { search: { rgPath: "/opt/rg" }, bash: { sandbox: true, allowUnsandboxedCommands: true, shell: "zsh" } },
  { bash: { sandbox: { program: "/opt/bwrap" }, containment: "process-group" } },
  { agent: { client: {} as never, model: "m", registry: new ToolRegistry() } },
];

Deno.test("The lazy table names every built-in tool with the class and programs the loaded tool has", async () => {
  for (const options of OPTION_SETS) {
    const eager = builtinTools(options);
    const lazy = lazyBuiltinTools(options);
    const meta = (t: { name: string; sideEffect: string; programs?: readonly string[] }) => ({
      name: t.name,
      sideEffect: t.sideEffect,
      programs: [...(t.programs ?? [])],
    });
    assert.deepEqual(lazy.map(meta), eager.map(meta), JSON.stringify(options));
    const loaded = await Promise.all(lazy.map((t) => t.load()));
    assert.deepEqual(loaded.map(meta), eager.map(meta));
    assert.deepEqual(loaded.map((t) => t.description), eager.map((t) => t.description));
  }
});

Deno.test("A lazy registry entry knows its name and class, refuses its definition until loaded, and loads once", async () => {
  let loads = 0;
  const [todo] = lazyBuiltinTools().filter((t) => t.name === "TodoWrite");
  const reg = new ToolRegistry().registerLazy({ ...todo, load: () => (loads++, todo.load()) });
  assert.ok(reg.has("TodoWrite") && !reg.isLoaded("TodoWrite"));
  assert.equal(reg.get("TodoWrite")?.sideEffect, "None");
  assert.throws(
    () => reg.definitions(),
    /Tool "TodoWrite" is not loaded: await registry\.load\("TodoWrite"\)/,
  );
  assert.throws(() => reg.register({ ...todo } as never), /already registered/);
  const view = reg.view({ readOnly: true });
  await Promise.all([reg.load(), reg.load("TodoWrite"), reg.load("NoSuchTool")]);
  assert.equal(loads, 1);
  assert.ok(reg.isLoaded("TodoWrite") && !view.isLoaded("TodoWrite"));
  assert.equal(reg.definitions()[0].function.name, "TodoWrite");
  await view.load();
  assert.equal(view.definitions()[0].function.name, "TodoWrite");
});

Deno.test("A runtime's built-in tools load on their first call, aliases and exclusions included", async () => {
  await using ws = await tempWorkspace();
  await ws.write("a.txt", "alpha\n");
  await using rt = createRuntime({ roots: [ws.dir], excludeTools: ["Bash"] });
  assert.ok(!rt.registry.has("Bash") && rt.registry.has("KillShell"));
  assert.ok(rt.policy().tools.some((t) => t.name === "Grep" && t.programs?.length === 1));
  assert.ok(!rt.registry.isLoaded("Read") && !rt.registry.isLoaded("TaskStop"));
  const read = await rt.run("Read", { file_path: ws.path("a.txt") });
  assert.ok(read.ok && read.text.includes("alpha"));
  assert.ok(rt.registry.isLoaded("Read") && !rt.registry.isLoaded("Write"));
  const [stop] = await rt.runBatch([{ name: "KillShell", input: { task_id: "none" } }]);
  assert.equal(stop.tool, "TaskStop");
  assert.ok(rt.registry.isLoaded("TaskStop"));
  const unknown = await rt.run("Reed", {});
  assert.equal(unknown.error?.code, "tool_not_found");
  assert.match(unknown.text, /Read/);
  await rt.registry.load();
  assert.equal(rt.registry.definitions().length, rt.registry.names().length);
});

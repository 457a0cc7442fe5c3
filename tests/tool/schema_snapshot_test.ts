// Pins every built-in tool's wire schema. After a deliberate change:
//   PADDOCK_UPDATE_SNAPSHOTS=1 deno test -A tests/tool/schema_snapshot_test.ts
import assert from "node:assert/strict";
import { builtinTools, ToolRegistry } from "../../mod.ts";
import { fromFileUrl } from "../_helpers/paths.ts";
import { allBuiltinOptions } from "../_helpers/builtin_options.ts";

const SNAPSHOT = fromFileUrl(new URL("./__snapshots__/tool_schemas.json", import.meta.url));
const PASSTHROUGH = new Set(["ExitPlanMode"]);

function definitions() {
  return new ToolRegistry(builtinTools(allBuiltinOptions())).definitions();
}

Deno.test("Every built-in tool schema is one an OpenAI-compatible endpoint accepts", () => {
  for (const def of definitions()) {
    const { name, description, parameters } = def.function;
    assert.match(name, /^[a-zA-Z0-9_-]{1,64}$/);
    assert.ok(description.length > 20, `${name} needs a real description`);
    assert.equal(parameters.type, "object", name);
    const json = JSON.stringify(parameters);
    assert.ok(!json.includes('"$schema"'), `${name} has $schema`);
    assert.ok(!json.includes("9007199254740991"), `${name} has ±2^53 bounds`);
    if (!PASSTHROUGH.has(name)) {
      assert.equal(parameters.additionalProperties, false, `${name} must be strict`);
    }
    for (
      const [prop, schema] of Object.entries(
        (parameters.properties ?? {}) as Record<string, { description?: string }>,
      )
    ) {
      assert.ok(schema.description, `${name}.${prop} has no description`);
    }
  }
});

Deno.test("Built-in tool schemas match the pinned snapshot", async () => {
  const current = Object.fromEntries(definitions().map((d) => [d.function.name, d.function.parameters]));
  const text = JSON.stringify(current, null, 2) + "\n";
  let update = false;
  try {
    update = Deno.env.get("PADDOCK_UPDATE_SNAPSHOTS") === "1";
  } catch {
    update = false;
  }
  if (update) await Deno.writeTextFile(SNAPSHOT, text);
  const pinned = JSON.parse(await Deno.readTextFile(SNAPSHOT));
  assert.deepEqual(
    current,
    pinned,
    "a tool schema changed: if on purpose, update the snapshot (see the top of this file)",
  );
});

import assert from "node:assert/strict";
import { runTool, ToolRegistry } from "../../mod.ts";
import { commandHooks, parseCommandHooks } from "../../src/runtime/mod.ts";
import { echoTool } from "../_helpers/tools.ts";
import { tempWorkspace } from "../_helpers/workspace.ts";

Deno.test("A PreToolUse hook command that exits 2 blocks the call with its stderr", async () => {
  await using ws = await tempWorkspace();
  const hooks = commandHooks({
    PreToolUse: [{
      matcher: "Echo",
      command: `grep -q '"text":"rm' && { echo "no rm here" >&2; exit 2; }; exit 0`,
    }],
  });
  const reg = new ToolRegistry([echoTool()]);
  const blocked = await runTool(reg, { name: "Echo", input: { text: "rm -rf" } }, {
    session: ws.session,
    hooks,
  });
  assert.equal(blocked.error?.code, "permission_denied");
  assert.match(blocked.text, /^Error: Denied by a hook: no rm here/);
  const fine = await runTool(reg, { name: "Echo", input: { text: "ls" } }, { session: ws.session, hooks });
  assert.equal(fine.text, "ls");
});

Deno.test("A PreToolUse hook command sees the event and can replace the input and add context", async () => {
  await using ws = await tempWorkspace();
  const seen = ws.path("event.json");
  const hooks = commandHooks({
    PreToolUse: [{
      command:
        `cat > ${seen}; echo '{"updatedInput":{"text":"rewritten"},"additionalContext":"hook was here"}'`,
    }],
  });
  const reg = new ToolRegistry([echoTool()]);
  const r = await runTool(reg, { name: "Echo", input: { text: "orig" }, id: "c9" }, {
    session: ws.session,
    hooks,
  });
  assert.equal(r.text, "rewritten\n\nhook was here");
  const event = JSON.parse(await Deno.readTextFile(seen));
  assert.equal(event.hook_event_name, "PreToolUse");
  assert.equal(event.tool_name, "Echo");
  assert.deepEqual(event.tool_input, { text: "orig" });
  assert.equal(event.tool_call_id, "c9");
  assert.equal(event.cwd, ws.dir);
});

Deno.test("Post hook commands add context, a failing hook command never blocks, and matchers filter", async () => {
  await using ws = await tempWorkspace();
  const hooks = commandHooks({
    PreToolUse: [{ matcher: "Other", command: "exit 2" }, { command: "exit 7" }],
    PostToolUse: [{
      matcher: "Ec.*",
      command:
        `python3 -c "import json,sys; e=json.load(sys.stdin); print(e['tool_response']['text'].upper())"`,
    }],
  });
  const reg = new ToolRegistry([echoTool()]);
  const r = await runTool(reg, { name: "Echo", input: { text: "quiet" } }, { session: ws.session, hooks });
  assert.equal(r.ok, true);
  assert.match(r.text, /^quiet\n\n\(PreToolUse hook "exit 7" failed with exit 7: \)\n\nQUIET$/);
});

Deno.test("Hook settings are checked, naming every problem", () => {
  assert.throws(
    () => parseCommandHooks({ PreToolUse: [{ matcher: "(", command: "x" }, {}], Before: [] }),
    (e: Error) =>
      /matcher is not a valid regular expression/.test(e.message) &&
      /needs a "command" string/.test(e.message) &&
      /unknown hook event "Before"/.test(e.message),
  );
});

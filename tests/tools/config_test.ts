import assert from "node:assert/strict";
import { runTool, type SessionEvent, ToolRegistry } from "../../mod.ts";
import { settingsPath } from "../../src/session/settings.ts";
import { type ConfigResult, configTool, sessionConfig } from "../../src/tools/config.ts";
import { tempWorkspace } from "../_helpers/workspace.ts";

const reg = () => new ToolRegistry([configTool]);
const approver = () => Promise.resolve(true);

Deno.test("Config sets the model, saves it to the settings file and tells the session", async () => {
  await using ws = await tempWorkspace();
  await ws.write(".paddock/settings.json", JSON.stringify({ model: "old-model", custom: { keep: 1 } }));
  const events: SessionEvent[] = [];
  ws.session.on((e) => events.push(e));
  const opts = { session: ws.session, approver };

  const read = await runTool(reg(), { name: "Config", input: { setting: "model" } }, opts);
  assert.equal(read.ok, true, read.text);
  assert.deepEqual(read.data, { success: true, operation: "get", setting: "model", value: "old-model" });

  const set = await runTool(
    reg(),
    { name: "Config", input: { setting: "model", value: "gpt-4o-mini" } },
    opts,
  );
  assert.equal(set.ok, true, set.text);
  assert.deepEqual(set.data as ConfigResult, {
    success: true,
    operation: "set",
    setting: "model",
    previousValue: "old-model",
    newValue: "gpt-4o-mini",
  });
  const kept = JSON.parse(await Deno.readTextFile(settingsPath(ws.dir)));
  assert.equal(kept.model, "old-model", "the project's settings file is the user's: never written (P3)");
  assert.equal(sessionConfig(ws.session).model, "gpt-4o-mini");
  assert.ok(events.some((e) => e.type === "config" && e.setting === "model" && e.value === "gpt-4o-mini"));

  const again = await runTool(reg(), { name: "Config", input: { setting: "model" } }, opts);
  assert.equal((again.data as ConfigResult).value, "gpt-4o-mini");
});

Deno.test("Config refuses unknown settings with the list and checks value types", async () => {
  await using ws = await tempWorkspace();
  const run = (input: unknown) =>
    runTool(reg(), { name: "Config", input }, { session: ws.session, approver });
  const unknown = await run({ setting: "theme", value: "dark" });
  assert.equal(unknown.error?.code, "invalid_input");
  assert.match(
    unknown.text,
    /Unknown setting "theme": known settings are model, permissions\.defaultMode, sandbox/,
  );
  const model = await run({ setting: "model", value: 4 });
  assert.match(model.text, /expected a non-empty string, got number 4/);
  const mode = await run({ setting: "permissions.defaultMode", value: "yolo" });
  assert.match(mode.text, /expected one of "default", "acceptEdits", "plan", "dontAsk"/);
  const bypass = await run({ setting: "permissions.defaultMode", value: "bypassPermissions" });
  assert.match(bypass.text, /cannot switch to "bypassPermissions"/);
  const wrongType = await run({ setting: "model", value: { a: 1 } });
  assert.equal(wrongType.error?.code, "invalid_input");
  await assert.rejects(Deno.stat(settingsPath(ws.dir)), Deno.errors.NotFound, "nothing was saved");
  assert.equal(ws.session.mode, "default");
});

Deno.test("Config narrows the permission mode for this session and saves nothing", async () => {
  await using ws = await tempWorkspace();
  ws.session.setMode("acceptEdits");
  const run = (input: unknown) =>
    runTool(reg(), { name: "Config", input }, { session: ws.session, approver });
  const mode = await run({ setting: "permissions.defaultMode", value: "default" });
  assert.deepEqual((mode.data as ConfigResult).previousValue, "acceptEdits");
  assert.equal(ws.session.mode, "default");
  await assert.rejects(Deno.stat(settingsPath(ws.dir)), Deno.errors.NotFound, "nothing was saved");
});

Deno.test("Config cannot raise the permission mode, even approved (P4)", async () => {
  await using ws = await tempWorkspace();
  const run = (input: unknown) =>
    runTool(reg(), { name: "Config", input }, { session: ws.session, approver });
  for (const value of ["acceptEdits", "bypassPermissions"]) {
    const r = await run({ setting: "permissions.defaultMode", value });
    assert.equal(r.ok, false, r.text);
    assert.equal(ws.session.mode, "default");
  }
  const widen = await run({ setting: "permissions.defaultMode", value: "acceptEdits" });
  assert.match(
    widen.text,
    /Config cannot widen the permission mode from "default" to "acceptEdits": only the user can/,
  );
  ws.session.setMode("dontAsk");
  const fromDontAsk = await run({ setting: "permissions.defaultMode", value: "default" });
  assert.equal(fromDontAsk.ok, false, "dontAsk to default would let calls ask their way through");
  assert.equal(ws.session.mode, "dontAsk");
});

Deno.test("Config cannot widen: the sandbox, the allowed hosts and bypassPermissions are the user's (P4)", async () => {
  await using ws = await tempWorkspace();
  const run = (input: unknown) =>
    runTool(reg(), { name: "Config", input }, { session: ws.session, approver });
  for (const value of [false, "false", true]) {
    const r = await run({ setting: "sandbox", value });
    assert.equal(r.error?.code, "permission_denied", r.text);
    assert.match(r.text, /Config cannot change "sandbox": .*only the user sets it, with --sandbox/);
  }
  for (const value of ["*", "evil.example"]) {
    const r = await run({ setting: "allowedHosts", value });
    assert.equal(r.error?.code, "permission_denied", r.text);
    assert.match(r.text, /Config cannot change "allowedHosts": .*--allow-host/);
  }
  const bypass = await run({ setting: "permissions.defaultMode", value: "bypassPermissions" });
  assert.match(bypass.text, /cannot switch to "bypassPermissions"/);
  await assert.rejects(Deno.stat(settingsPath(ws.dir)), Deno.errors.NotFound, "nothing was saved");
  assert.equal(ws.session.mode, "default");
  assert.equal((await run({ setting: "sandbox" })).ok, true, "reading is fine");
});

Deno.test("Config reads in plan mode but cannot change a setting there", async () => {
  await using ws = await tempWorkspace();
  ws.session.setMode("plan");
  const read = await runTool(reg(), { name: "Config", input: { setting: "permissions.defaultMode" } }, {
    session: ws.session,
    approver,
  });
  assert.equal(read.ok, true, read.text);
  assert.equal((read.data as ConfigResult).value, "plan");
  const set = await runTool(reg(), {
    name: "Config",
    input: { setting: "permissions.defaultMode", value: "default" },
  }, {
    session: ws.session,
    approver,
  });
  assert.equal(set.error?.code, "permission_denied");
  assert.match(set.text, /cannot run in plan mode/);
  assert.equal(ws.session.mode, "plan");
});

Deno.test("Config asks before a change in default mode and not before a read", async () => {
  await using ws = await tempWorkspace();
  const asked: string[] = [];
  const deny = (req: { sideEffect: string }) => {
    asked.push(req.sideEffect);
    return Promise.resolve(false);
  };
  const read = await runTool(reg(), { name: "Config", input: { setting: "model" } }, {
    session: ws.session,
    approver: deny,
  });
  assert.equal(read.ok, true);
  const set = await runTool(reg(), { name: "Config", input: { setting: "model", value: "m" } }, {
    session: ws.session,
    approver: deny,
  });
  assert.equal(set.error?.code, "permission_denied");
  assert.deepEqual(asked, ["Mutating"]);
});

Deno.test("Config will not write through a .paddock symlink that leaves the workspace", async () => {
  await using ws = await tempWorkspace();
  await using outside = await tempWorkspace("paddock-outside-");
  await Deno.symlink(outside.dir, ws.path(".paddock"));
  const r = await runTool(reg(), { name: "Config", input: { setting: "model", value: "m" } }, {
    session: ws.session,
    approver,
  });
  assert.equal(r.error?.code, "permission_denied");
  assert.deepEqual([...Deno.readDirSync(outside.dir)], []);
  assert.equal(sessionConfig(ws.session).model, undefined);
});

import assert from "node:assert/strict";
import { z } from "zod";
import { defineTool, runTool, type SessionEvent, ToolRegistry } from "../../mod.ts";
import type { PlanRequest } from "../../src/tool/interaction.ts";
import { configTool } from "../../src/tools/config.ts";
import { createExitPlanModeTool, enterPlanMode, planState } from "../../src/tools/exit_plan_mode.ts";
import { tempWorkspace } from "../_helpers/workspace.ts";

/** A test-only stand-in for Edit: a Mutating tool that writes a file in the workspace. */
const fakeEdit = defineTool({
  name: "FakeEdit",
  description: "Writes text to a file (test only)",
  sideEffect: "Mutating",
  input: z.strictObject({
    file_path: z.string().describe("Absolute path"),
    content: z.string().describe("New content"),
  }),
  execute: async (i) => {
    await Deno.writeTextFile(i.file_path, i.content);
    return `Wrote ${i.file_path}`;
  },
});

Deno.test("Plan mode blocks a Mutating tool until ExitPlanMode is approved", async () => {
  await using ws = await tempWorkspace();
  const file = await ws.write("notes.txt", "before\n");
  const reviewed: PlanRequest[] = [];
  const answers = [{ approved: false, feedback: "Also update the changelog" }, { approved: true }];
  const reg = new ToolRegistry([
    fakeEdit,
    createExitPlanModeTool({
      approvePlan: (req) => {
        reviewed.push(req);
        return Promise.resolve(answers.shift()!);
      },
    }),
  ]);
  const approver = () => Promise.resolve(true); // would allow the edit if the mode did not block it
  const edit = { name: "FakeEdit", input: { file_path: file, content: "after\n" } };
  ws.session.setMode("plan");

  const blocked = await runTool(reg, edit, { session: ws.session, approver });
  assert.equal(blocked.ok, false);
  assert.equal(blocked.error?.code, "permission_denied");
  assert.match(blocked.text, /cannot run in plan mode.*ExitPlanMode/);
  assert.equal(await Deno.readTextFile(file), "before\n");

  const plan = { plan: "1. Change notes.txt", allowedPrompts: [{ tool: "Bash", prompt: "run the tests" }] };
  const rejected = await runTool(reg, { name: "ExitPlanMode", input: plan }, {
    session: ws.session,
    approver,
  });
  assert.equal(rejected.ok, false);
  assert.match(rejected.text, /did not approve the plan: "Also update the changelog"/);
  assert.equal(ws.session.mode, "plan");
  const stillBlocked = await runTool(reg, edit, { session: ws.session, approver });
  assert.equal(stillBlocked.error?.code, "permission_denied");

  const approved = await runTool(reg, { name: "ExitPlanMode", input: plan }, {
    session: ws.session,
    approver,
  });
  assert.equal(approved.ok, true, approved.text);
  assert.equal(ws.session.mode, "default");
  assert.equal(reviewed.length, 2);
  assert.equal(reviewed[1].plan, "1. Change notes.txt");
  assert.deepEqual(reviewed[1].allowedPrompts, [{ tool: "Bash", prompt: "run the tests" }]);
  assert.deepEqual(planState(ws.session).allowedPrompts, [{ tool: "Bash", prompt: "run the tests" }]);

  const ran = await runTool(reg, edit, { session: ws.session, approver });
  assert.equal(ran.ok, true, ran.text);
  assert.equal(await Deno.readTextFile(file), "after\n");
});

Deno.test("ExitPlanMode returns to the mode the session had before plan mode", async () => {
  await using ws = await tempWorkspace();
  const events: SessionEvent[] = [];
  ws.session.on((e) => events.push(e));
  const reg = new ToolRegistry([
    configTool,
    createExitPlanModeTool({ approvePlan: () => Promise.resolve(true) }),
  ]);
  ws.session.setMode("acceptEdits");
  const toPlan = await runTool(reg, {
    name: "Config",
    input: { setting: "permissions.defaultMode", value: "plan" },
  }, {
    session: ws.session,
  });
  assert.equal(toPlan.ok, true, toPlan.text);
  assert.equal(ws.session.mode, "plan");
  const exit = await runTool(reg, { name: "ExitPlanMode", input: {} }, { session: ws.session });
  assert.equal(exit.ok, true, exit.text);
  assert.equal(ws.session.mode, "acceptEdits");
  assert.ok(events.some((e) => e.type === "plan" && e.approved === true && e.mode === "acceptEdits"));

  ws.session.setMode("dontAsk");
  enterPlanMode(ws.session);
  await runTool(reg, { name: "ExitPlanMode", input: {} }, { session: ws.session });
  assert.equal(ws.session.mode, "dontAsk");
});

Deno.test("ExitPlanMode outside plan mode or without an approver says what is wrong", async () => {
  await using ws = await tempWorkspace();
  const outside = await runTool(
    new ToolRegistry([createExitPlanModeTool({ approvePlan: () => Promise.resolve(true) })]),
    { name: "ExitPlanMode", input: {} },
    { session: ws.session },
  );
  assert.equal(outside.ok, false);
  assert.match(outside.text, /only applies in plan mode: the session is in "default" mode/);

  ws.session.setMode("plan");
  const noApprover = await runTool(new ToolRegistry([createExitPlanModeTool()]), {
    name: "ExitPlanMode",
    input: {},
  }, {
    session: ws.session,
  });
  assert.equal(noApprover.error?.code, "unavailable");
  assert.match(noApprover.text, /No plan approver is set/);
  assert.equal(ws.session.mode, "plan");
});

Deno.test("ExitPlanMode passes extra keys through but checks allowedPrompts", async () => {
  await using ws = await tempWorkspace();
  ws.session.setMode("plan");
  let seen: Record<string, unknown> = {};
  const reg = new ToolRegistry([createExitPlanModeTool({
    approvePlan: (req) => {
      seen = req.input;
      return Promise.resolve(false);
    },
  })]);
  const schema = reg.schemaOf("ExitPlanMode");
  assert.notEqual(schema.additionalProperties, false, "the wire schema lets extra keys through");
  await runTool(reg, { name: "ExitPlanMode", input: { plan: "Do it", planFilePath: "/tmp/p.md" } }, {
    session: ws.session,
  });
  assert.equal(seen.planFilePath, "/tmp/p.md");
  const bad = await runTool(reg, {
    name: "ExitPlanMode",
    input: { allowedPrompts: [{ tool: "Edit", prompt: "" }] },
  }, {
    session: ws.session,
  });
  assert.equal(bad.error?.code, "invalid_input");
  assert.match(bad.text, /"allowedPrompts\.0\.tool"/);
  assert.match(bad.text, /prompt must not be empty/);
});

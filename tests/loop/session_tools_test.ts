import assert from "node:assert/strict";
import { ToolRegistry } from "../../src/tool/registry.ts";
import { runAgentToEnd } from "../../src/loop/agent_loop.ts";
import { createModelClient } from "../../src/loop/client.ts";
import type { AgentEvent } from "../../src/loop/events.ts";
import { createAskUserQuestionTool } from "../../src/tools/ask_user_question.ts";
import { editTool } from "../../src/tools/edit.ts";
import { createExitPlanModeTool } from "../../src/tools/exit_plan_mode.ts";
import { readTool } from "../../src/tools/read/read.ts";
import { startFakeLlm } from "../_helpers/fake_llm.ts";
import { tempWorkspace } from "../_helpers/workspace.ts";

Deno.test("plan mode blocks an Edit until ExitPlanMode is approved, then the Edit runs", async () => {
  await using ws = await tempWorkspace();
  const file = await ws.write("notes.txt", "status: draft\n");
  ws.session.setMode("plan");
  const plans: Array<string | undefined> = [];
  const registry = new ToolRegistry([
    readTool,
    editTool,
    createExitPlanModeTool({ approvePlan: (req) => (plans.push(req.plan), Promise.resolve(true)) }),
  ]);
  const edit = { name: "Edit", arguments: { file_path: file, old_string: "draft", new_string: "final" } };
  await using llm = await startFakeLlm([
    { toolCalls: [{ id: "r", name: "Read", arguments: { file_path: file } }] },
    { toolCalls: [{ id: "e1", ...edit }] },
    { toolCalls: [{ id: "x", name: "ExitPlanMode", arguments: { plan: "1. Change draft to final" } }] },
    { toolCalls: [{ id: "e2", ...edit }] },
    { text: "Changed." },
  ]);
  const events: AgentEvent[] = [];
  const result = await runAgentToEnd({
    client: createModelClient({ baseUrl: llm.baseUrl }),
    model: "m",
    registry,
    prompt: "finalise the notes",
    runOptions: { session: ws.session, approver: () => Promise.resolve(true) },
  }, (e) => events.push(e));
  assert.equal(result.stopReason, "completed");
  assert.deepEqual(llm.problems, []);
  assert.match(llm.requests[2].toolResults.get("e1")!, /^Error: "Edit" cannot run in plan mode/);
  assert.match(llm.requests[3].toolResults.get("x")!, /approved the plan/);
  assert.ok(!llm.requests[4].toolResults.get("e2")!.startsWith("Error: "));
  assert.deepEqual(plans, ["1. Change draft to final"]);
  assert.equal(await Deno.readTextFile(file), "status: final\n");
  assert.ok(
    events.some((e) => e.type === "session" && e.event.type === "mode" && e.event.mode === "default"),
  );
});

Deno.test("AskUserQuestion reaches a scripted handler and its answer goes back to the model", async () => {
  await using ws = await tempWorkspace();
  const asked: string[] = [];
  const ask = createAskUserQuestionTool({
    askUser: (qs) => {
      asked.push(...qs.map((q) => q.question));
      return Promise.resolve({ [qs[0].question]: "Blue" });
    },
  });
  const question = {
    questions: [{
      question: "Which colour?",
      header: "Colour",
      options: [{ label: "Blue", description: "Calm" }, { label: "Red", description: "Loud" }],
    }],
  };
  await using llm = await startFakeLlm([
    { toolCalls: [{ id: "q", name: "AskUserQuestion", arguments: question }] },
    { text: "Blue it is." },
  ]);
  const result = await runAgentToEnd({
    client: createModelClient({ baseUrl: llm.baseUrl }),
    model: "m",
    registry: new ToolRegistry([ask]),
    prompt: "pick a colour with me",
    runOptions: { session: ws.session },
  });
  assert.equal(result.text, "Blue it is.");
  assert.deepEqual(asked, ["Which colour?"]);
  assert.match(llm.requests[1].toolResults.get("q")!, /"Which colour\?" = "Blue"/);

  await using llm2 = await startFakeLlm([
    { toolCalls: [{ id: "q", name: "AskUserQuestion", arguments: question }] },
    { text: "I will pick myself." },
  ]);
  await runAgentToEnd({
    client: createModelClient({ baseUrl: llm2.baseUrl }),
    model: "m",
    registry: new ToolRegistry([createAskUserQuestionTool({})]),
    prompt: "pick",
    runOptions: { session: ws.session },
  });
  assert.match(llm2.requests[1].toolResults.get("q")!, /^Error: /, "no handler: a clear error, not a hang");
});

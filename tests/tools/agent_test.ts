import assert from "node:assert/strict";
import { z } from "zod";
import { defineTool } from "../../src/tool/define_tool.ts";
import type { ToolEvent } from "../../src/tool/hooks.ts";
import { ToolRegistry } from "../../src/tool/registry.ts";
import { runTool } from "../../src/tool/run_tool.ts";
import { runAgentToEnd } from "../../src/loop/agent_loop.ts";
import { GENERAL_PURPOSE, loadAgentTypes, parseAgentType } from "../../src/loop/agent_types.ts";
import { createModelClient } from "../../src/loop/client.ts";
import { sessionTasks } from "../../src/tasks/types.ts";
import { agentTool, type AgentToolData } from "../../src/tools/agent.ts";
import { taskOutputTool } from "../../src/tools/task_output.ts";
import { taskStopTool } from "../../src/tools/task_stop.ts";
import {
  type RecordedRequest,
  type ScriptedAnswer,
  type ScriptStep,
  startFakeLlm,
} from "../_helpers/fake_llm.ts";
import { tempWorkspace } from "../_helpers/workspace.ts";

const PARENT_PROMPT = "You are the parent.";

const echo = defineTool({
  name: "Echo",
  description: "Repeats its input",
  sideEffect: "ReadOnly",
  input: z.strictObject({ text: z.string().describe("What to repeat") }),
  execute: (i) => Promise.resolve(`echo: ${i.text}`),
});

/** Answers parent and sub-agent requests from separate queues, told apart by the system prompt. */
function router(
  parent: ScriptedAnswer[],
  sub: ScriptedAnswer[],
  seen: { sub: RecordedRequest[] },
): ScriptStep[] {
  const step = (req: RecordedRequest): ScriptedAnswer => {
    const isParent = req.messages[0]?.content === PARENT_PROMPT;
    if (!isParent) seen.sub.push(req);
    const next = (isParent ? parent : sub).shift();
    if (!next) throw new Error(`no ${isParent ? "parent" : "sub"} answer left`);
    return next;
  };
  return Array.from({ length: parent.length + sub.length }, () => step);
}

async function setup(script: ScriptStep[], types = [GENERAL_PURPOSE]) {
  const ws = await tempWorkspace();
  const llm = await startFakeLlm(script);
  const client = createModelClient({ baseUrl: llm.baseUrl, apiKey: "k" });
  const registry = new ToolRegistry([echo, taskOutputTool, taskStopTool]);
  registry.register(agentTool({ client, model: "parent-model", registry, agentTypes: types }));
  registry.allow("Agent");
  const run = (prompt: string) =>
    runAgentToEnd({
      client,
      model: "parent-model",
      registry,
      systemPrompt: PARENT_PROMPT,
      prompt,
      runOptions: { session: ws.session },
    });
  return {
    ws,
    llm,
    registry,
    run,
    async [Symbol.asyncDispose]() {
      await ws.session.close();
      await llm.close();
      await ws[Symbol.asyncDispose]();
    },
  };
}

Deno.test("Agent runs a sub-agent in the foreground with its own history and no nested Agent", async () => {
  const seen = { sub: [] as RecordedRequest[] };
  await using t = await setup(router(
    [
      {
        toolCalls: [{
          id: "a1",
          name: "Agent",
          arguments: { description: "Echo things", prompt: "echo hello", subagent_type: "general-purpose" },
        }],
      },
      { text: "parent done" },
    ],
    [{ toolCalls: [{ name: "Echo", arguments: { text: "hello" } }] }, { text: "sub says hello" }],
    seen,
  ));
  const result = await t.run("delegate");
  assert.equal(result.text, "parent done");
  assert.deepEqual(t.llm.problems, []);
  assert.deepEqual(
    seen.sub[0].toolNames,
    ["Echo", "TaskOutput", "TaskStop"],
    "the sub-agent sees no Agent tool",
  );
  assert.equal(seen.sub[0].messages.at(-1).content, "echo hello");
  assert.ok(!seen.sub[0].messages.some((m: { content: string }) => m.content === "delegate"), "own history");
  const back = t.llm.requests.at(-1)!.toolResults.get("a1")!;
  assert.match(back, /^sub says hello/);
  assert.match(back, /agentId: a[0-9a-f]{8}/);
  assert.match(back, /usage: 30 tokens, 1 tool calls/);
});

Deno.test("Agent in the background is a task with the final text, and resume continues its history", async () => {
  const seen = { sub: [] as RecordedRequest[] };
  await using t = await setup([]);
  const llm = t.llm;
  llm.enqueue(...router([], [{ text: "first answer" }, { text: "second answer" }], seen));
  const events: ToolEvent[] = [];
  const started = await runTool(
    t.registry,
    {
      name: "Agent",
      input: {
        description: "bg",
        prompt: "work",
        subagent_type: "general-purpose",
        run_in_background: true,
        name: "scout",
      },
    },
    { session: t.ws.session, approver: () => Promise.resolve(true), onEvent: (e) => events.push(e) },
  );
  assert.ok(started.ok, started.text);
  const id = (started.data as AgentToolData).agentId;
  const task = sessionTasks(t.ws.session).get(id)!;
  assert.equal(task.kind, "agent");
  assert.equal(task.description, "scout: bg", "the name shows in the task list");
  assert.ok(
    events.some((e) => e.type === "tool_start" && e.summary === 'general-purpose "scout": bg'),
    "and in the tool line",
  );
  const out = await runTool(t.registry, { name: "TaskOutput", input: { task_id: id, block: true } }, {
    session: t.ws.session,
  });
  assert.ok(out.ok, out.text);
  assert.match(out.text, /completed/);
  assert.match(out.text, /first answer/);
  assert.match(out.text, new RegExp(`agentId: ${id}`), "the finished task names the agent id");
  assert.match(out.text, /usage: 15 tokens, 0 tool calls, \d+\.\d s/, "and its usage");
  assert.equal(task.status(), "completed");
  assert.match(task.result?.() ?? "", /^first answer\n/);
  const resumed = await runTool(
    t.registry,
    {
      name: "Agent",
      input: { description: "again", prompt: "more", subagent_type: "general-purpose", resume: id },
    },
    { session: t.ws.session, approver: () => Promise.resolve(true) },
  );
  assert.ok(resumed.ok, resumed.text);
  assert.match(resumed.text, /^second answer/);
  const history = seen.sub[1].messages.map((m: { role: string; content: string }) =>
    `${m.role}:${m.content}`
  );
  assert.deepEqual(history.slice(1), ["user:work", "assistant:first answer", "user:more"]);
  assert.equal((resumed.data as AgentToolData).usage.requests, 2);
  assert.deepEqual(llm.problems, []);
});

Deno.test("TaskStop stops a background agent", async () => {
  await using t = await setup([{ text: "never finishes", hang: true }]);
  const started = await runTool(
    t.registry,
    {
      name: "Agent",
      input: { description: "bg", prompt: "work", subagent_type: "general-purpose", run_in_background: true },
    },
    { session: t.ws.session, approver: () => Promise.resolve(true) },
  );
  const task = sessionTasks(t.ws.session).get((started.data as AgentToolData).agentId)!;
  while (t.llm.requests.length === 0) await new Promise((r) => setTimeout(r, 5));
  const stopped = await runTool(t.registry, { name: "TaskStop", input: { task_id: task.id } }, {
    session: t.ws.session,
    approver: () => Promise.resolve(true),
  });
  assert.ok(stopped.ok, stopped.text);
  await task.done();
  assert.equal(task.status(), "killed");
});

Deno.test("Agent refuses an unknown type, an unknown resume id, and uses a type's tools and model", async () => {
  const reviewer = parseAgentType(
    "---\nname: reviewer\ndescription: Reviews\ntools: [Echo]\nmodel: small-model\n---\nYou review.",
  );
  await using t = await setup([], [GENERAL_PURPOSE, reviewer]);
  const opts = { session: t.ws.session, approver: () => Promise.resolve(true) };
  const bad = await runTool(t.registry, {
    name: "Task",
    input: { description: "x", prompt: "y", subagent_type: "nope" },
  }, opts);
  assert.match(bad.text, /^Error: No agent type "nope": use one of general-purpose, reviewer/);
  const gone = await runTool(t.registry, {
    name: "Agent",
    input: { description: "x", prompt: "y", subagent_type: "reviewer", resume: "a00000000" },
  }, opts);
  assert.match(gone.text, /^Error: No agent with id "a00000000"/);
  t.llm.enqueue({ text: "reviewed" });
  const ok = await runTool(t.registry, {
    name: "Agent",
    input: { description: "x", prompt: "y", subagent_type: "reviewer" },
  }, opts);
  assert.match(ok.text, /^reviewed/);
  const req = t.llm.requests[0];
  assert.equal(req.body.model, "small-model");
  assert.equal(req.messages[0].content, "You review.");
  assert.deepEqual(req.toolNames, ["Echo"]);
});

Deno.test("Agent types load from .paddock/agents and a type listing Agent may nest", async () => {
  await using ws = await tempWorkspace();
  await ws.write(
    ".paddock/agents/lead.md",
    "---\nname: lead\ndescription: Delegates\ntools:\n  - Agent\n  - Echo\n---\nLead.\n",
  );
  const types = loadAgentTypes(ws.dir);
  assert.deepEqual(types.map((t) => t.name), ["general-purpose", "lead"]);
  assert.deepEqual(types[1].tools, ["Agent", "Echo"]);
  await ws.write(".paddock/agents/broken.md", "no frontmatter");
  assert.throws(() => loadAgentTypes(ws.dir), /broken\.md" has no frontmatter/);
});

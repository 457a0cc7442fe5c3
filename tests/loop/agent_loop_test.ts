import assert from "node:assert/strict";
import { z } from "zod";
import { defineTool, type Tool } from "../../src/tool/define_tool.ts";
import { ToolRegistry } from "../../src/tool/registry.ts";
import { type AgentOptions, runAgent, runAgentToEnd } from "../../src/loop/agent_loop.ts";
import { type ChatMessage, createModelClient } from "../../src/loop/client.ts";
import type { AgentEvent } from "../../src/loop/events.ts";
import { sessionModel } from "../../src/loop/model_config.ts";
import { configTool, sessionConfig } from "../../src/tools/config.ts";
import { startFakeLlm } from "../_helpers/fake_llm.ts";
import { tempWorkspace } from "../_helpers/workspace.ts";

const echo = defineTool({
  name: "Echo",
  description: "Repeats its input",
  sideEffect: "None",
  input: z.strictObject({ text: z.string().describe("What to repeat") }),
  execute: (i) => Promise.resolve(`echo: ${i.text}`),
});

function options(baseUrl: string, tools: Tool[], extra: Partial<AgentOptions>): AgentOptions {
  return {
    client: createModelClient({ baseUrl, apiKey: "test-key" }),
    model: "fake-model",
    registry: new ToolRegistry(tools),
    retry: { sleep: () => Promise.resolve() },
    ...extra,
  };
}

for (const stream of [true, false]) {
  Deno.test(`runAgent runs a tool call and sends the result back under its id (stream: ${stream})`, async () => {
    await using ws = await tempWorkspace();
    await using llm = await startFakeLlm([
      { text: "Let me echo.", toolCalls: [{ id: "c1", name: "Echo", arguments: { text: "hi" } }] },
      { text: "Done: hi" },
    ]);
    const events: AgentEvent[] = [];
    const result = await runAgentToEnd(
      options(llm.baseUrl, [echo], { prompt: "say hi", stream, runOptions: { session: ws.session } }),
      (e) => events.push(e),
    );
    assert.deepEqual(llm.problems, []);
    assert.equal(result.stopReason, "completed");
    assert.equal(result.text, "Done: hi");
    assert.equal(result.turns, 2);
    assert.equal(result.usage.totalTokens, 30);
    assert.equal(result.usage.toolCalls, 1);
    assert.equal(llm.requests[1].toolResults.get("c1"), "echo: hi");
    assert.deepEqual(llm.requests[0].toolNames, ["Echo"]);
    assert.equal(llm.requests[0].body.stream ?? false, stream);
    assert.equal(llm.requests[0].headers.get("authorization"), "Bearer test-key");
    const text = events.filter((e) => e.type === "text").map((e) => (e as { delta: string }).delta).join("");
    assert.equal(text, "Let me echo.Done: hi");
    const types = events.map((e) => e.type);
    assert.deepEqual(types.filter((t) => t.startsWith("tool_")), ["tool_call", "tool_start", "tool_end"]);
    assert.equal(types.at(-1), "result");
  });
}

Deno.test("runAgent runs the read-only calls of one turn in parallel", async () => {
  await using ws = await tempWorkspace();
  let started = 0;
  const { promise: both, resolve } = Promise.withResolvers<void>();
  const wait = defineTool({
    name: "Wait",
    description: "Waits for its sibling",
    sideEffect: "ReadOnly",
    input: z.strictObject({ n: z.number().describe("n") }),
    execute: async (_i, ctx) => {
      if (++started === 2) resolve();
      let timer: ReturnType<typeof setTimeout> | undefined;
      const alone = new Promise<string>((r) => (timer = setTimeout(() => r("alone"), 3000)));
      const out = await Promise.race([
        both.then(() => "together"),
        alone,
        new Promise<string>((_, rej) =>
          ctx.signal.addEventListener("abort", () => rej(new Error("aborted")))
        ),
      ]);
      clearTimeout(timer);
      return out;
    },
  });
  await using llm = await startFakeLlm([
    { toolCalls: [{ name: "Wait", arguments: { n: 1 } }, { name: "Wait", arguments: { n: 2 } }] },
    { text: "ok" },
  ]);
  const result = await runAgentToEnd(
    options(llm.baseUrl, [wait], { prompt: "go", runOptions: { session: ws.session } }),
  );
  assert.equal(result.stopReason, "completed");
  assert.deepEqual([...llm.requests[1].toolResults.values()], ["together", "together"]);
  assert.deepEqual(llm.problems, []);
});

Deno.test("runAgent answers malformed arguments and unknown tools with Error results and goes on", async () => {
  await using ws = await tempWorkspace();
  await using llm = await startFakeLlm([
    {
      toolCalls: [
        { id: "bad", name: "Echo", arguments: '{"text": "unterminated' },
        { id: "wrong", name: "Echo", arguments: { txt: "x" } },
        { id: "nope", name: "Ecko", arguments: {} },
      ],
    },
    { toolCalls: [{ id: "good", name: "Echo", arguments: { text: "fixed" } }] },
    { text: "all good" },
  ]);
  const ends: AgentEvent[] = [];
  const result = await runAgentToEnd(
    options(llm.baseUrl, [echo], { prompt: "go", runOptions: { session: ws.session } }),
    (e) => e.type === "tool_end" && ends.push(e),
  );
  assert.equal(result.stopReason, "completed");
  const sent = llm.requests[1].toolResults;
  assert.match(sent.get("bad")!, /^Error: Input for Echo is not valid JSON/);
  assert.match(sent.get("wrong")!, /^Error: .*text/s);
  assert.match(sent.get("nope")!, /^Error: No tool named "Ecko": did you mean "Echo"\?/);
  assert.equal(llm.requests[2].toolResults.get("good"), "echo: fixed");
  assert.equal(ends.length, 4, "every call, even refused ones, ends with a tool_end event");
  assert.deepEqual(llm.problems, []);
});

Deno.test("runAgent retries a 429 after the retry-after delay, then succeeds", async () => {
  await using llm = await startFakeLlm([
    { status: 429, headers: { "retry-after": "2" } },
    { status: 503 },
    { text: "finally" },
  ]);
  const slept: number[] = [];
  const events: AgentEvent[] = [];
  const result = await runAgentToEnd(
    options(llm.baseUrl, [], {
      prompt: "hi",
      retry: { sleep: (ms) => (slept.push(ms), Promise.resolve()), baseDelayMs: 100 },
    }),
    (e) => events.push(e),
  );
  assert.equal(result.stopReason, "completed");
  assert.equal(result.text, "finally");
  assert.equal(slept[0], 2000, "retry-after: 2 means two seconds");
  assert.ok(slept[1] >= 150 && slept[1] <= 200, `backoff within jitter, got ${slept[1]}`);
  assert.equal(events.filter((e) => e.type === "retry").length, 2);
  assert.equal(llm.requests.length, 3);
  assert.equal(result.usage.requests, 1, "retries are not counted as requests");
});

for (
  const [status, pattern] of [[401, /refused the API key \(401\).*OPENAI_API_KEY/], [
    404,
    /answered 404 for model "fake-model".*--model/,
  ]] as const
) {
  Deno.test(`runAgent stops on a ${status} with a message naming the base URL and the model`, async () => {
    await using llm = await startFakeLlm([{ status, body: { error: { message: "nope", type: "x" } } }]);
    const result = await runAgentToEnd(options(llm.baseUrl, [], { prompt: "hi" }));
    assert.equal(result.stopReason, "error");
    assert.ok(result.error!.includes(`"${llm.baseUrl}"`), result.error);
    assert.ok(result.error!.includes(`"fake-model"`), result.error);
    assert.match(result.error!, pattern);
    assert.equal(llm.requests.length, 1, "no retry on a client error");
  });
}

Deno.test("runAgent retries a network error, then reports an unreachable endpoint by its URL", async () => {
  const llm = await startFakeLlm([]);
  const baseUrl = llm.baseUrl;
  await llm.close();
  const events: AgentEvent[] = [];
  const result = await runAgentToEnd(
    options(baseUrl, [], { prompt: "hi", retry: { maxRetries: 1, sleep: () => Promise.resolve() } }),
    (e) => events.push(e),
  );
  assert.equal(events.filter((e) => e.type === "retry").length, 1, "a network error is retried");
  assert.equal(result.stopReason, "error");
  assert.match(result.error!, /Cannot reach the model endpoint ".*": .*OPENAI_BASE_URL/);
});

Deno.test("aborting mid-stream ends the run and leaves a history the next request accepts", async () => {
  await using ws = await tempWorkspace();
  await using llm = await startFakeLlm([
    { text: "I will now", hang: true },
    (req) => {
      assert.equal(req.messages.at(-1).content, "continue");
      return { text: "resumed" };
    },
  ]);
  const history: ChatMessage[] = [];
  const controller = new AbortController();
  const seen: AgentEvent[] = [];
  for await (
    const e of runAgent(
      options(llm.baseUrl, [echo], {
        prompt: "go",
        history,
        signal: controller.signal,
        runOptions: { session: ws.session },
      }),
    )
  ) {
    seen.push(e);
    if (e.type === "text") controller.abort();
  }
  const result = seen.at(-1)!;
  assert.equal(result.type, "result");
  assert.equal((result as { stopReason: string }).stopReason, "aborted");
  assert.ok(history.every((m) => m.role !== "assistant" || !m.tool_calls));
  const again = await runAgentToEnd(
    options(llm.baseUrl, [echo], { prompt: "continue", history, runOptions: { session: ws.session } }),
  );
  assert.equal(again.text, "resumed");
  assert.deepEqual(llm.problems, []);
});

Deno.test("aborting mid-tool gives every tool_call a tool message", async () => {
  await using ws = await tempWorkspace();
  const slow = defineTool({
    name: "Slow",
    description: "Waits until aborted",
    sideEffect: "Mutating",
    input: z.strictObject({}),
    execute: (_i, ctx) =>
      new Promise<string>((_, reject) =>
        ctx.signal.addEventListener("abort", () => reject(ctx.signal.reason), { once: true })
      ),
  });
  await using llm = await startFakeLlm([
    { toolCalls: [{ id: "s1", name: "Slow", arguments: {} }, { id: "s2", name: "Slow", arguments: {} }] },
    { text: "after" },
  ]);
  const history: ChatMessage[] = [];
  const controller = new AbortController();
  let last: AgentEvent | undefined;
  for await (
    const e of runAgent(options(llm.baseUrl, [slow], {
      prompt: "go",
      history,
      signal: controller.signal,
      runOptions: { session: ws.session, approver: () => Promise.resolve(true) },
    }))
  ) {
    last = e;
    if (e.type === "tool_start") controller.abort();
  }
  assert.equal(last?.type === "result" && last.stopReason, "aborted");
  const tools = history.filter((m) => m.role === "tool") as Array<{ tool_call_id: string; content: string }>;
  assert.deepEqual(tools.map((m) => m.tool_call_id), ["s1", "s2"]);
  assert.ok(tools.every((m) => m.content.startsWith("Error: ")));
  assert.match(tools[1].content, /Interrupted/);
  const again = await runAgentToEnd(
    options(llm.baseUrl, [slow], { prompt: "next", history, runOptions: { session: ws.session } }),
  );
  assert.equal(again.text, "after");
  assert.deepEqual(llm.problems, []);
});

Deno.test("runAgent stops at max_turns and at the token budget", async () => {
  await using ws = await tempWorkspace();
  const call = { toolCalls: [{ name: "Echo", arguments: { text: "again" } }] };
  await using llm = await startFakeLlm([call, call, call, call]);
  const capped = await runAgentToEnd(
    options(llm.baseUrl, [echo], { prompt: "loop", maxTurns: 2, runOptions: { session: ws.session } }),
  );
  assert.equal(capped.stopReason, "max_turns");
  assert.equal(capped.turns, 2);
  assert.equal(llm.requests.length, 2);
  const budget = await runAgentToEnd(
    options(llm.baseUrl, [echo], { prompt: "loop", maxTokens: 20, runOptions: { session: ws.session } }),
  );
  assert.equal(budget.stopReason, "token_budget");
  assert.equal(budget.usage.totalTokens, 30);
  assert.deepEqual(llm.problems, []);
});

Deno.test("runAgent asks again once after an empty answer", async () => {
  await using llm = await startFakeLlm([{}, { text: "here" }]);
  const result = await runAgentToEnd(options(llm.baseUrl, [], { prompt: "hi" }));
  assert.equal(result.text, "here");
  assert.equal(llm.requests.length, 2);
});

Deno.test("the model set through the session's config slot applies from the next turn", async () => {
  await using ws = await tempWorkspace();
  const switcher = defineTool({
    name: "Switch",
    description: "Sets the model",
    sideEffect: "None",
    input: z.strictObject({ model: z.string().describe("model") }),
    execute: (i, ctx) => {
      sessionConfig(ctx.session).model = i.model;
      return Promise.resolve("ok");
    },
  });
  await using llm = await startFakeLlm([{ toolCalls: [{ name: "Switch", arguments: { model: "bigger" } }] }, {
    text: "done",
  }]);
  await runAgentToEnd(
    options(llm.baseUrl, [switcher], {
      prompt: "go",
      model: () => sessionModel(ws.session, "small"),
      runOptions: { session: ws.session },
    }),
  );
  assert.deepEqual(llm.requests.map((r) => r.body.model), ["small", "bigger"]);
});

Deno.test("session events such as todos reach the event stream", async () => {
  await using ws = await tempWorkspace();
  const todo = defineTool({
    name: "Todo",
    description: "Emits todos",
    sideEffect: "None",
    input: z.strictObject({}),
    execute: (_i, ctx) => {
      ctx.session.emit({
        type: "todos",
        todos: [{ content: "a", status: "pending", activeForm: "Doing a" }],
      });
      return Promise.resolve("ok");
    },
  });
  await using llm = await startFakeLlm([{ toolCalls: [{ name: "Todo", arguments: {} }] }, { text: "done" }]);
  const events: AgentEvent[] = [];
  await runAgentToEnd(
    options(llm.baseUrl, [todo], { prompt: "go", runOptions: { session: ws.session } }),
    (e) => events.push(e),
  );
  const session = events.find((e) => e.type === "session");
  assert.equal(session?.type === "session" && session.event.type, "todos");
});

Deno.test("tool calls that arrive without ids get ids the tool messages echo", async () => {
  await using ws = await tempWorkspace();
  await using llm = await startFakeLlm([
    {
      toolCalls: [{ id: "", name: "Echo", arguments: { text: "a" } }, {
        id: "",
        name: "Echo",
        arguments: { text: "b" },
      }],
    },
    { text: "ok" },
  ]);
  const result = await runAgentToEnd(
    options(llm.baseUrl, [echo], { prompt: "go", runOptions: { session: ws.session } }),
  );
  assert.equal(result.stopReason, "completed");
  const sent = [...llm.requests[1].toolResults.entries()];
  assert.equal(sent.length, 2);
  assert.ok(sent.every(([id]) => /^call_/.test(id)));
  assert.deepEqual(sent.map(([, text]) => text), ["echo: a", "echo: b"]);
  assert.deepEqual(llm.problems, []);
});

Deno.test("the Config tool switches the model for the next turn, for this session only", async () => {
  await using ws = await tempWorkspace();
  await using llm = await startFakeLlm([
    { toolCalls: [{ name: "Config", arguments: { setting: "model", value: "bigger-model" } }] },
    { text: "switched" },
  ]);
  await runAgentToEnd(options(llm.baseUrl, [configTool], {
    prompt: "use the bigger model",
    model: () => sessionModel(ws.session, "small-model"),
    runOptions: { session: ws.session, approver: () => Promise.resolve(true) },
  }));
  assert.deepEqual(llm.requests.map((r) => r.body.model), ["small-model", "bigger-model"]);
  await assert.rejects(
    Deno.stat(ws.path(".paddock/settings.json")),
    Deno.errors.NotFound,
    "nothing was saved",
  );
});

import assert from "node:assert/strict";
import { z } from "zod";
import { defineTool, executeToolCalls, runTool, Session, type ToolEvent, ToolRegistry } from "../../mod.ts";
import { denyListMiddleware, loggingMiddleware } from "../../src/tool/mod.ts";
import { echoTool, slowTool } from "../_helpers/tools.ts";
import { tempWorkspace } from "../_helpers/workspace.ts";

Deno.test("A valid call returns text for the model and structured data", async () => {
  await using ws = await tempWorkspace();
  const reg = new ToolRegistry([echoTool()]);
  const r = await runTool(reg, { name: "Echo", input: '{"text":"hi"}', id: "c1" }, { session: ws.session });
  assert.equal(r.ok, true);
  assert.equal(r.text, "hi");
  assert.deepEqual(r.data, { echoed: "hi" });
  assert.equal(r.id, "c1");
  assert.equal(r.tool, "Echo");
});

Deno.test("Invalid input is one error naming every problem", async () => {
  await using ws = await tempWorkspace();
  const reg = new ToolRegistry([defineTool({
    name: "Pick",
    description: "Picks",
    sideEffect: "None",
    input: z.strictObject({
      n: z.number().describe("n"),
      mode: z.enum(["fast", "slow"]).describe("mode"),
      name: z.string().describe("name"),
    }),
    execute: () => Promise.resolve("ran"),
  })]);
  const r = await runTool(reg, { name: "Pick", input: { n: "7", mode: "medium", extra: 1 } }, {
    session: ws.session,
  });
  assert.equal(r.ok, false);
  assert.equal(r.error?.code, "invalid_input");
  assert.match(r.text, /^Error: Invalid input for Pick: /);
  assert.match(r.text, /"n" must be number, got string "7"/);
  assert.match(r.text, /"mode" must be one of "fast", "slow", got "medium"/);
  assert.match(r.text, /missing required parameter "name"/);
  assert.match(r.text, /unexpected parameter "extra"/);
});

Deno.test("Malformed and non-object JSON input is refused with the reason", async () => {
  await using ws = await tempWorkspace();
  const reg = new ToolRegistry([echoTool()]);
  const bad = await runTool(reg, { name: "Echo", input: '{"text": "a"' }, { session: ws.session });
  assert.match(bad.text, /^Error: Input for Echo is not valid JSON/);
  const arr = await runTool(reg, { name: "Echo", input: "[1,2]" }, { session: ws.session });
  assert.match(arr.text, /must be a JSON object, got array/);
  const huge = await runTool(reg, { name: "Echo", input: `{"text":"${"x".repeat(6_000_000)}"}` }, {
    session: ws.session,
  });
  assert.match(huge.text, /the limit is 5000000/);
});

Deno.test("An unknown tool is an error naming the closest tools", async () => {
  await using ws = await tempWorkspace();
  const reg = new ToolRegistry([echoTool("Read", "ReadOnly"), echoTool("Write", "Mutating")]);
  const r = await runTool(reg, { name: "read", input: {} }, { session: ws.session });
  assert.equal(r.error?.code, "tool_not_found");
  assert.match(r.text, /No tool named "read": did you mean "Read"/);
});

Deno.test("A Mutating call without an approver is refused, and the approver decides otherwise", async () => {
  await using ws = await tempWorkspace();
  const reg = new ToolRegistry([echoTool("Change", "Mutating")]);
  const none = await runTool(reg, { name: "Change", input: { text: "x" } }, { session: ws.session });
  assert.equal(none.error?.code, "permission_denied");
  assert.match(none.text, /no approver is set/);
  const asked: string[] = [];
  const yes = await runTool(reg, { name: "Change", input: { text: "x" } }, {
    session: ws.session,
    approver: (req) => (asked.push(`${req.tool}:${req.sideEffect}`), Promise.resolve(true)),
  });
  assert.equal(yes.ok, true);
  assert.deepEqual(asked, ["Change:Mutating"]);
  const no = await runTool(reg, { name: "Change", input: { text: "x" } }, {
    session: ws.session,
    approver: () => Promise.resolve({ behavior: "deny", reason: "not today" }),
  });
  assert.match(no.text, /^Error: The user denied "Change": not today/);
});

Deno.test("Plan mode refuses Mutating, Execute and Network tools and lets read-only ones run", async () => {
  await using ws = await tempWorkspace();
  ws.session.setMode("plan");
  const reg = new ToolRegistry([
    echoTool("Look", "ReadOnly"),
    echoTool("Change", "Mutating"),
    echoTool("Run", "Execute"),
    echoTool("Fetch", "Network"),
  ]);
  const opts = { session: ws.session, approver: () => Promise.resolve(true) };
  assert.equal((await runTool(reg, { name: "Look", input: { text: "a" } }, opts)).ok, true);
  for (const name of ["Change", "Run", "Fetch"]) {
    const r = await runTool(reg, { name, input: { text: "a" } }, opts);
    assert.equal(r.error?.code, "permission_denied", name);
    assert.match(r.text, /cannot run in plan mode/);
  }
});

Deno.test("Rules deny before anything and allow without asking", async () => {
  await using ws = await tempWorkspace();
  const reg = new ToolRegistry([echoTool("Change", "Mutating")]);
  const denied = await runTool(reg, { name: "Change", input: { text: "x" } }, {
    session: ws.session,
    rules: { deny: ["Change"] },
    approver: () => Promise.resolve(true),
  });
  assert.match(denied.text, /Denied by rule "Change"/);
  const allowed = await runTool(reg, { name: "Change", input: { text: "x" } }, {
    session: ws.session,
    rules: { allow: ["Change"] },
  });
  assert.equal(allowed.ok, true);
});

Deno.test("PreToolUse hooks can deny, replace the input and add context", async () => {
  await using ws = await tempWorkspace();
  const reg = new ToolRegistry([echoTool()]);
  const denied = await runTool(reg, { name: "Echo", input: { text: "secret" } }, {
    session: ws.session,
    hooks: {
      preToolUse: [(e) => e.input.text === "secret" ? { decision: "deny", reason: "no secrets" } : undefined],
    },
  });
  assert.equal(denied.ok, false);
  assert.match(denied.text, /^Error: Denied by a hook: no secrets/);
  const replaced = await runTool(reg, { name: "Echo", input: { text: "a" } }, {
    session: ws.session,
    hooks: { preToolUse: [() => ({ updatedInput: { text: "b" }, additionalContext: "note from hook" })] },
  });
  assert.equal(replaced.ok, true);
  assert.match(replaced.text, /^b\n\nnote from hook$/);
  const invalid = await runTool(reg, { name: "Echo", input: { text: "a" } }, {
    session: ws.session,
    hooks: { preToolUse: [() => ({ updatedInput: { text: 5 } })] },
  });
  assert.match(invalid.text, /A hook replaced the input with an invalid one/);
});

Deno.test("A hook's allow skips the approver but not plan mode", async () => {
  await using ws = await tempWorkspace();
  const reg = new ToolRegistry([echoTool("Change", "Mutating")]);
  const hooks = { preToolUse: [() => ({ decision: "allow" as const })] };
  assert.equal(
    (await runTool(reg, { name: "Change", input: { text: "x" } }, { session: ws.session, hooks })).ok,
    true,
  );
  ws.session.setMode("plan");
  assert.equal(
    (await runTool(reg, { name: "Change", input: { text: "x" } }, { session: ws.session, hooks })).ok,
    false,
  );
});

Deno.test("PostToolUse and PostToolUseFailure hooks see results and add context", async () => {
  await using ws = await tempWorkspace();
  const reg = new ToolRegistry([
    echoTool(),
    defineTool({
      name: "Boom",
      description: "Fails",
      sideEffect: "None",
      input: z.strictObject({}),
      execute: () => Promise.reject(new Error("kaboom")),
    }),
  ]);
  const seen: string[] = [];
  const hooks = {
    postToolUse: [
      (
        e: { tool: string; result: { ok: boolean } },
      ) => (seen.push(`post:${e.tool}:${e.result.ok}`), { additionalContext: "checked" }),
    ],
    postToolUseFailure: [(e: { tool: string }) => void seen.push(`fail:${e.tool}`)],
  };
  const ok = await runTool(reg, { name: "Echo", input: { text: "x" } }, { session: ws.session, hooks });
  assert.equal(ok.text, "x\n\nchecked");
  const bad = await runTool(reg, { name: "Boom", input: {} }, { session: ws.session, hooks });
  assert.equal(bad.text, "Error: kaboom");
  assert.equal(bad.error?.code, "execution_failed");
  assert.deepEqual(seen, ["post:Echo:true", "fail:Boom"]);
});

Deno.test("Progress events come as start, output chunks and end", async () => {
  await using ws = await tempWorkspace();
  const reg = new ToolRegistry([slowTool()]);
  const events: ToolEvent[] = [];
  const r = await runTool(reg, { name: "Slow", input: { ms: 1, chunks: ["a", "b"] }, id: "p1" }, {
    session: ws.session,
    onEvent: (e) => events.push(e),
  });
  assert.equal(r.ok, true);
  assert.deepEqual(events.map((e) => e.type), ["tool_start", "tool_output", "tool_output", "tool_end"]);
  const end = events.at(-1)!;
  assert.ok(end.type === "tool_end" && end.elapsedMs >= 0 && end.ok);
});

Deno.test("A call past its timeout stops with the output it had", async () => {
  await using ws = await tempWorkspace();
  const reg = new ToolRegistry([slowTool()]);
  const r = await runTool(reg, { name: "Slow", input: { ms: 60_000, chunks: ["partial line"] } }, {
    session: ws.session,
    timeoutMs: 50,
  });
  assert.equal(r.error?.code, "timeout");
  assert.match(r.text, /timed out after 50 ms/);
  assert.match(r.text, /partial line/);
});

Deno.test("Aborting a call stops it, and an aborted batch gives every later call an error", async () => {
  await using ws = await tempWorkspace();
  const reg = new ToolRegistry([slowTool(), echoTool("Change", "Mutating")]);
  const ac = new AbortController();
  setTimeout(() => ac.abort(), 30);
  const results = await executeToolCalls(reg, [
    { name: "Slow", input: { ms: 60_000, chunks: [] }, id: "1" },
    { name: "Change", input: { text: "x" }, id: "2" },
    { name: "Change", input: { text: "y" }, id: "3" },
  ], { session: ws.session, signal: ac.signal, approver: () => Promise.resolve(true) });
  assert.deepEqual(results.map((r) => r.id), ["1", "2", "3"]);
  assert.equal(results[0].error?.code, "aborted");
  assert.ok(
    results.slice(1).every((r) => r.error?.code === "aborted" && r.text.startsWith("Error: Interrupted")),
  );
});

Deno.test("Read-only calls of a batch run in parallel, others in order", async () => {
  await using ws = await tempWorkspace();
  const log: string[] = [];
  const mk = (name: string, sideEffect: "ReadOnly" | "Mutating") =>
    defineTool({
      name,
      description: name,
      sideEffect,
      input: z.strictObject({ id: z.string().describe("id") }),
      execute: async (i) => {
        log.push(`start ${i.id}`);
        await new Promise((r) => setTimeout(r, 20));
        log.push(`end ${i.id}`);
        return i.id;
      },
    });
  const reg = new ToolRegistry([mk("Look", "ReadOnly"), mk("Change", "Mutating")]);
  const results = await executeToolCalls(reg, [
    { name: "Look", input: { id: "a" } },
    { name: "Look", input: { id: "b" } },
    { name: "Change", input: { id: "c" } },
    { name: "Look", input: { id: "d" } },
  ], { session: ws.session, approver: () => Promise.resolve(true) });
  assert.deepEqual(results.map((r) => r.text), ["a", "b", "c", "d"]);
  assert.deepEqual(log, ["start a", "start b", "end a", "end b", "start c", "end c", "start d", "end d"]);
});

Deno.test("Long output keeps head and tail and saves the whole in the session folder", async () => {
  await using ws = await tempWorkspace();
  const reg = new ToolRegistry([defineTool({
    name: "Big",
    description: "Big output",
    sideEffect: "None",
    maxOutputChars: 1000,
    input: z.strictObject({}),
    execute: () => Promise.resolve(`HEAD${"m".repeat(50_000)}TAIL`),
  })]);
  const r = await runTool(reg, { name: "Big", input: {} }, { session: ws.session });
  assert.ok(r.text.length <= 1000, `length ${r.text.length}`);
  assert.ok(r.text.startsWith("HEAD") && r.text.endsWith("TAIL"));
  assert.ok(r.truncated);
  assert.equal(r.truncated.originalChars, 50_008);
  assert.ok(r.truncated.fullOutputPath.startsWith(ws.session.outputDir()));
  assert.ok(r.text.includes(r.truncated.fullOutputPath));
  assert.equal(await Deno.readTextFile(r.truncated.fullOutputPath), `HEAD${"m".repeat(50_000)}TAIL`);
});

Deno.test("Middleware wraps the runner in order and can answer alone", async () => {
  await using ws = await tempWorkspace();
  const reg = new ToolRegistry([echoTool(), echoTool("Bash", "Execute")]);
  const lines: string[] = [];
  const opts = {
    session: ws.session,
    middleware: [loggingMiddleware((l) => lines.push(l)), denyListMiddleware(["Bash"])],
  };
  const ok = await runTool(reg, { name: "Echo", input: { text: "x" } }, opts);
  const denied = await runTool(reg, { name: "Bash", input: { text: "x" } }, opts);
  assert.equal(ok.ok, true);
  assert.match(denied.text, /on the deny list/);
  assert.equal(lines.length, 4);
  assert.match(lines[3], /← Bash error permission_denied/);
});

Deno.test("A disabled tool is refused under its canonical name before its input is checked", async () => {
  await using ws = await tempWorkspace();
  const reg = new ToolRegistry([echoTool("TaskStop", "Execute")]).disable("TaskStop", "needs --allow-run");
  const events: ToolEvent[] = [];
  const r = await runTool(reg, { name: "KillShell", input: { wrong: 1 } }, {
    session: ws.session,
    onEvent: (e) => events.push(e),
  });
  assert.equal(r.tool, "TaskStop");
  assert.equal(r.error?.code, "permission_denied");
  assert.equal(r.text, 'Error: Tool "TaskStop" is disabled: needs --allow-run');
  assert.deepEqual(events.map((e) => e.type), ["tool_end"]);
});

Deno.test("A PreToolUse hook that throws stops the call, keeping what earlier hooks added", async () => {
  await using ws = await tempWorkspace();
  const reg = new ToolRegistry([echoTool()]);
  const r = await runTool(reg, { name: "Echo", input: { text: "x" } }, {
    session: ws.session,
    hooks: {
      preToolUse: [() => ({ additionalContext: "seen" }), () => {
        throw new Error("hook crashed");
      }],
    },
  });
  assert.equal(r.error?.code, "permission_denied");
  assert.equal(r.text, 'Error: A PreToolUse hook failed, so "Echo" did not run: hook crashed\n\nseen');
});

Deno.test("A hook's ask puts even a read-only call to the approver, with the call's summary", async () => {
  await using ws = await tempWorkspace();
  const reg = new ToolRegistry([echoTool("Look", "ReadOnly")]);
  const asked: string[] = [];
  const r = await runTool(reg, { name: "Look", input: { text: "x" } }, {
    session: ws.session,
    hooks: { preToolUse: [() => ({ decision: "ask" as const, updatedInput: { text: "y" } })] },
    approver: (
      q,
    ) => (asked.push(`${q.tool} ${q.sideEffect} ${JSON.stringify(q.input)}`), Promise.resolve(false)),
  });
  assert.deepEqual(asked, ['Look ReadOnly {"text":"y"}']);
  assert.equal(r.text, 'Error: The user denied "Look"');
});

Deno.test("A result whose whole output cannot be saved comes back as an error saying why", async () => {
  await using ws = await tempWorkspace();
  const blocked = await ws.write("not-a-folder", "");
  const session = new Session({ roots: [ws.dir], outputDir: `${blocked}/out` });
  const reg = new ToolRegistry([defineTool({
    name: "Big",
    description: "Big output",
    sideEffect: "None",
    maxOutputChars: 100,
    input: z.strictObject({}),
    execute: () => Promise.resolve("x".repeat(1000)),
  })]);
  const r = await runTool(reg, { name: "Big", input: {} }, { session });
  assert.equal(r.ok, false);
  assert.equal(r.error?.code, "execution_failed");
  assert.ok(r.text.startsWith("Error: ") && r.text.length < 200, r.text);
});

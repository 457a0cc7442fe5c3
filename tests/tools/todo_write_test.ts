import assert from "node:assert/strict";
import { runTool, type SessionEvent, ToolRegistry } from "../../mod.ts";
import { currentTodos, type TodoWriteResult, todoWriteTool } from "../../src/tools/todo_write.ts";
import { tempWorkspace } from "../_helpers/workspace.ts";

const reg = () => new ToolRegistry([todoWriteTool]);

Deno.test("TodoWrite replaces the list, returns old and new, and tells observers", async () => {
  await using ws = await tempWorkspace();
  const events: SessionEvent[] = [];
  ws.session.on((e) => events.push(e));
  const first = [
    { content: "Read the code", status: "completed", activeForm: "Reading the code" },
    { content: "Fix the bug", status: "in_progress", activeForm: "Fixing the bug" },
    { content: "Run the tests", status: "pending", activeForm: "Running the tests" },
  ];
  const r1 = await runTool(reg(), { name: "TodoWrite", input: { todos: first } }, { session: ws.session });
  assert.equal(r1.ok, true, r1.text);
  assert.match(r1.text, /1 pending, 1 in progress, 1 completed/);
  assert.match(r1.text, /\[~\] Fix the bug/);
  assert.deepEqual((r1.data as TodoWriteResult).oldTodos, []);
  assert.deepEqual((r1.data as TodoWriteResult).newTodos, first);

  const second = [{ content: "Run the tests", status: "in_progress", activeForm: "Running the tests" }];
  const r2 = await runTool(reg(), { name: "TodoWrite", input: { todos: second } }, { session: ws.session });
  assert.deepEqual((r2.data as TodoWriteResult).oldTodos, first);
  assert.deepEqual(currentTodos(ws.session), second);

  const todoEvents = events.filter((e) => e.type === "todos");
  assert.equal(todoEvents.length, 2);
  assert.deepEqual(todoEvents[0].todos, first);
  assert.deepEqual(todoEvents[1].todos, second);
});

Deno.test("TodoWrite clears the stored list when every item is completed", async () => {
  await using ws = await tempWorkspace();
  const done = [
    { content: "A", status: "completed", activeForm: "Doing A" },
    { content: "B", status: "completed", activeForm: "Doing B" },
  ];
  await runTool(reg(), { name: "TodoWrite", input: { todos: [{ ...done[0], status: "pending" }] } }, {
    session: ws.session,
  });
  const r = await runTool(reg(), { name: "TodoWrite", input: { todos: done } }, { session: ws.session });
  assert.equal(r.ok, true, r.text);
  assert.equal((r.data as TodoWriteResult).cleared, true);
  assert.deepEqual((r.data as TodoWriteResult).newTodos, done);
  assert.deepEqual(currentTodos(ws.session), []);
  const next = await runTool(reg(), { name: "TodoWrite", input: { todos: [done[0]] } }, {
    session: ws.session,
  });
  assert.deepEqual((next.data as TodoWriteResult).oldTodos, [], "the cleared list is the old one next time");
});

Deno.test("TodoWrite refuses empty strings, a bad status and unknown keys, naming each problem", async () => {
  await using ws = await tempWorkspace();
  const r = await runTool(reg(), {
    name: "TodoWrite",
    input: { todos: [{ content: "  ", status: "doing", activeForm: "", id: "1" }] },
  }, { session: ws.session });
  assert.equal(r.ok, false);
  assert.equal(r.error?.code, "invalid_input");
  assert.match(r.text, /content must not be empty/);
  assert.match(r.text, /activeForm must not be empty/);
  assert.match(r.text, /"todos\.0\.status" must be one of "pending", "in_progress", "completed"/);
  assert.match(r.text, /unexpected parameter "todos\.0\.id"/);
  assert.deepEqual(currentTodos(ws.session), []);
});

import assert from "node:assert/strict";
import { stripVTControlCharacters } from "node:util";
import { createRenderer } from "../../src/cli/render.ts";
import type { AgentEvent } from "../../src/loop/events.ts";
import type { ToolCallResult } from "../../src/tool/run_tool.ts";

function render(events: AgentEvent[], json = false, color = false) {
  const out: string[] = [];
  const err: string[] = [];
  const r = createRenderer({ out: (t) => out.push(t), err: (t) => err.push(t) }, { json, color });
  events.forEach((e) => r.render(e));
  return { out: out.join(""), err: err.join("") };
}

const ESC = "\x1b";
const usage = { promptTokens: 12, completionTokens: 3, totalTokens: 15, requests: 1, toolCalls: 1 };
const bashResult = { id: "b", tool: "Bash", ok: true, text: "hi", elapsedMs: 1 } as ToolCallResult;

Deno.test("the renderer shows text, a tool line, live output, todos, failures and a usage line", () => {
  const { out, err } = render([
    { type: "text", delta: "Let me check" },
    { type: "tool_start", callId: "b", tool: "Bash", input: { command: "echo hi" }, summary: "echo hi" },
    { type: "tool_output", callId: "b", tool: "Bash", chunk: "hi" },
    { type: "tool_end", callId: "b", tool: "Bash", ok: true, elapsedMs: 1, result: bashResult },
    {
      type: "session",
      event: {
        type: "todos",
        todos: [
          { content: "Run tests", status: "completed", activeForm: "Running tests" },
          { content: "Fix bug", status: "in_progress", activeForm: "Fixing the bug" },
          { content: "Ship", status: "pending", activeForm: "Shipping" },
        ],
      },
    },
    {
      type: "tool_end",
      callId: "x",
      tool: "Edit",
      ok: false,
      elapsedMs: 1,
      result: { ...bashResult, tool: "Edit", ok: false, text: "Error: File has not been read yet\nmore" },
    },
    { type: "result", stopReason: "completed", text: "", turns: 2, usage, durationMs: 1500 },
  ]);
  assert.equal(out, "Let me check\n");
  assert.equal(
    err,
    "→ Bash echo hi\nhi\nTodos:\n  [x] Run tests\n  [>] Fixing the bug\n  [ ] Ship\n" +
      "  ✗ Edit: File has not been read yet\n2 turns, 15 tokens (12 in, 3 out), 1 tool call, 1.5 s\n",
  );
});

Deno.test("the renderer in JSON mode writes one parseable event per line", () => {
  const { out, err } = render(
    [{ type: "text", delta: "a\nb" }, { type: "turn_end", turn: 1, toolCalls: 0 }],
    true,
  );
  assert.equal(err, "");
  assert.deepEqual(out.trim().split("\n").map((l) => JSON.parse(l).type), ["text", "turn_end"]);
});

Deno.test("the renderer colours tool lines, failures and diffs only when asked", () => {
  const events: AgentEvent[] = [
    { type: "tool_start", callId: "b", tool: "Bash", input: { command: "ls" }, summary: "ls" },
    {
      type: "tool_end",
      callId: "e",
      tool: "Edit",
      ok: true,
      elapsedMs: 1,
      result: { ...bashResult, tool: "Edit", data: { diff: "-old\n+new\n" } },
    },
    { type: "result", stopReason: "error", text: "", turns: 1, usage, durationMs: 10, error: "boom" },
  ];
  const plain = render(events).err;
  assert.ok(!plain.includes(ESC), "no escapes without colour");
  const colored = render(events, false, true).err;
  assert.ok(colored.includes(`${ESC}[36m→${ESC}[39m Bash ls`), colored);
  assert.ok(colored.includes(`${ESC}[31m-old${ESC}[39m`) && colored.includes(`${ESC}[32m+new${ESC}[39m`));
  assert.ok(colored.includes(`${ESC}[31mError:${ESC}[39m boom`));
  assert.equal(stripVTControlCharacters(colored), plain);
});

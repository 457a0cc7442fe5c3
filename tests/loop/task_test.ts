import assert from "node:assert/strict";
import { createRuntime } from "../../src/runtime/runtime.ts";
import { runAgentToEnd } from "../../src/loop/agent_loop.ts";
import { createModelClient } from "../../src/loop/client.ts";
import type { AgentEvent } from "../../src/loop/events.ts";
import { type RecordedRequest, type ScriptStep, startFakeLlm } from "../_helpers/fake_llm.ts";
import { tempWorkspace } from "../_helpers/workspace.ts";

Deno.test("a multi-turn task greps, reads, edits and runs a command in a workspace", async () => {
  await using ws = await tempWorkspace();
  const target = await ws.write(
    "src/math.ts",
    "export function add(a, b) {\n  return a - b; // TODO fix\n}\n",
  );
  await ws.write("src/other.ts", "export const x = 1;\n");
  await using rt = createRuntime({
    roots: [ws.dir],
    outputDir: ws.session.outputDir(),
    mode: "bypassPermissions",
  });
  const hasBash = rt.registry.has("Bash");
  const last = (req: RecordedRequest) => [...req.toolResults.values()].at(-1) ?? "";
  const script: ScriptStep[] = [
    {
      text: "Looking for the TODO.",
      toolCalls: [{
        id: "g",
        name: "Grep",
        arguments: { pattern: "TODO", output_mode: "files_with_matches" },
      }],
    },
    (req) => {
      assert.match(last(req), /src\/math\.ts/);
      assert.doesNotMatch(last(req), /other\.ts/);
      return { toolCalls: [{ id: "r", name: "Read", arguments: { file_path: target } }] };
    },
    (req) => {
      assert.match(last(req), /return a - b; \/\/ TODO fix/);
      return {
        toolCalls: [{
          id: "e",
          name: "Edit",
          arguments: { file_path: target, old_string: "a - b; // TODO fix", new_string: "a + b;" },
        }],
      };
    },
    (req) => {
      assert.doesNotMatch(last(req), /^Error: /);
      return hasBash
        ? {
          toolCalls: [{
            id: "b",
            name: "Bash",
            arguments: { command: "grep -c 'a + b' src/math.ts", description: "Count fixes" },
          }],
        }
        : { text: "Fixed add." };
    },
    ...(hasBash
      ? [(req: RecordedRequest) => {
        assert.match(last(req), /\b1\b/);
        return { text: "Fixed add." };
      }]
      : []),
  ];
  await using llm = await startFakeLlm(script);
  const events: AgentEvent[] = [];
  const result = await runAgentToEnd({
    client: createModelClient({ baseUrl: llm.baseUrl }),
    model: "m",
    registry: rt.registry,
    runOptions: rt.runOptions,
    prompt: "Fix the TODO in add",
  }, (e) => events.push(e));
  assert.deepEqual(llm.problems, []);
  assert.equal(result.stopReason, "completed", result.error);
  assert.equal(result.text, "Fixed add.");
  assert.equal(await Deno.readTextFile(target), "export function add(a, b) {\n  return a + b;\n}\n");
  const ran = events.filter((e) => e.type === "tool_start").map((e) => (e as { tool: string }).tool);
  assert.deepEqual(ran, hasBash ? ["Grep", "Read", "Edit", "Bash"] : ["Grep", "Read", "Edit"]);
  assert.ok(llm.requests[0].toolNames.includes("Grep") && llm.requests[0].toolNames.includes("Edit"));
});

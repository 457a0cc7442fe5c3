import assert from "node:assert/strict";
import { startFakeLlm } from "../_helpers/fake_llm.ts";
import { CONFIG, DENO, processesWith, waitUntil } from "../_helpers/groups.ts";
import { tempWorkspace } from "../_helpers/workspace.ts";

const CLI = new URL("../../cli.ts", import.meta.url).pathname;

/** Collects a stream's text as it arrives. */
function collect(stream: ReadableStream<Uint8Array>): { text: () => string; done: Promise<void> } {
  let text = "";
  const done = stream.pipeThrough(new TextDecoderStream()).pipeTo(
    new WritableStream({ write: (t) => void (text += t) }),
  );
  return { text: () => text, done };
}

Deno.test("Ctrl-C in paddock chat stops the current turn (mid-tool and mid-stream) and a Ctrl-C at the prompt quits", async () => {
  await using ws = await tempWorkspace();
  const sleep = `sleep ${6000 + Math.floor(Math.random() * 1000)}.25`; // unique among parallel tests
  await using llm = await startFakeLlm([
    { toolCalls: [{ id: "call_sleep", name: "Bash", arguments: { command: sleep } }] },
    { text: "Partial answer", hang: true },
    { text: "Done." },
  ]);
  const child = new Deno.Command(DENO, {
    args: [
      "run",
      "-A",
      "--config",
      CONFIG,
      CLI,
      "chat",
      "--root",
      ws.dir,
      "--permission-mode",
      "bypassPermissions",
      "--quiet",
      "--output-dir",
      ws.session.outputDir(),
    ],
    env: { PADDOCK_MODEL: "m", OPENAI_BASE_URL: llm.baseUrl, NO_COLOR: "1" },
    stdin: "piped",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  const stdin = child.stdin.getWriter();
  const out = collect(child.stdout);
  const err = collect(child.stderr);
  const say = (line: string) => stdin.write(new TextEncoder().encode(line + "\n"));
  const why = () => `stdout:\n${out.text()}\nstderr:\n${err.text()}`;
  try {
    // 1. interrupt a running tool: the turn ends, the process lives on
    await say("run it");
    assert.ok(await waitUntil(() => processesWith(sleep).length === 1), why());
    child.kill("SIGINT");
    assert.ok(await waitUntil(() => /Stopped: /.test(err.text())), why());
    assert.match(err.text(), /\(interrupted: Ctrl-C again quits\)/);
    assert.ok(await waitUntil(() => processesWith(sleep).length === 0), "the command's group was stopped");
    // 2. the next prompt works; interrupt the model mid-stream
    await say("again");
    assert.ok(await waitUntil(() => out.text().includes("Partial answer")), why());
    child.kill("SIGINT");
    assert.ok(await waitUntil(() => (err.text().match(/Stopped: /g) ?? []).length === 2), why());
    // 3. a third prompt completes normally with a valid history
    await say("third");
    assert.ok(await waitUntil(() => out.text().includes("Done.")), why());
    // 4. Ctrl-C at the prompt quits
    child.kill("SIGINT");
    const status = await child.status;
    assert.equal(status.code, 130, why());
  } finally {
    await stdin.close().catch(() => {});
    try {
      child.kill("SIGKILL");
    } catch {
      // already ended
    }
    await child.status;
    await Promise.all([out.done, err.done]).catch(() => {});
  }
  assert.equal(llm.requests.length, 3);
  assert.deepEqual(llm.problems, [], "every tool_call was answered by a tool message");
  const second = llm.requests[1].messages;
  const toolMsg = second.find((m: { role: string }) => m.role === "tool");
  assert.equal(toolMsg.tool_call_id, "call_sleep");
  assert.match(toolMsg.content, /^Error: /, "the interrupted call is answered with an error");
  const third = llm.requests[2].messages.map((m: { role: string; content: string | null }) =>
    `${m.role}:${m.content ?? ""}`
  );
  assert.deepEqual(third.slice(-3), ["user:again", "assistant:Partial answer", "user:third"]);
});

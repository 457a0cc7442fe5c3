/**
 * `paddock run`: WebFetch answers its prompt with the configured model,
 * through the loop's own client.
 */
import assert from "node:assert/strict";
import type { CliIo } from "../../src/cli/command.ts";
import { main } from "../../src/cli/main.ts";
import { type RecordedRequest, startFakeLlm } from "../_helpers/fake_llm.ts";
import { startServer } from "../_helpers/web_server.ts";
import { tempWorkspace } from "../_helpers/workspace.ts";

Deno.test("paddock run: WebFetch's prompt is answered over the page by the configured model", async () => {
  await using ws = await tempWorkspace();
  await using page = startServer(() =>
    new Response("<html><body><h1>Otters</h1><p>Otters hold hands while sleeping.</p></body></html>", {
      headers: { "content-type": "text/html" },
    })
  );
  let asked: RecordedRequest | undefined;
  await using llm = await startFakeLlm([
    {
      toolCalls: [{
        id: "c1",
        name: "WebFetch",
        arguments: { url: `${page.base}/otters`, prompt: "What do otters do?" },
      }],
    },
    (req) => {
      asked = req;
      return { text: "They hold hands while they sleep." };
    },
    { text: "Done" },
  ]);
  const stdout: string[] = [];
  const stderr: string[] = [];
  const io: CliIo = {
    out: (t) => void stdout.push(t),
    err: (t) => void stderr.push(t),
    stdin: new Blob([""]).stream(),
    isTerminal: false,
    env: { PADDOCK_MODEL: "m", OPENAI_API_KEY: "sk-test" },
    cwd: ws.dir,
    signal: new AbortController().signal,
  };
  const code = await main([
    "run",
    "--quiet",
    "--base-url",
    llm.baseUrl,
    "--root",
    ws.dir,
    "--allow-host",
    `127.0.0.1:${page.port}`,
    "--allow",
    "WebFetch",
    "look it up",
  ], io);
  assert.equal(code, 0, stderr.join(""));
  assert.ok(asked, "the model was asked about the page");
  assert.deepEqual(asked.toolNames, [], "the page question offers no tools");
  assert.equal(asked.messages[0].role, "system");
  assert.match(asked.messages[1].content, /Otters hold hands while sleeping\./);
  assert.match(asked.messages[1].content, /Question: What do otters do\?/);
  const toolResult = llm.requests[2].toolResults.get("c1") ?? "";
  assert.match(toolResult, /They hold hands while they sleep\./);
  assert.ok(!toolResult.includes("# Otters"), "the model's answer replaces the page");
});

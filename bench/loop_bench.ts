/**
 * Loop overhead per turn against the scripted chat-completions server.
 *
 * Each group runs a 10-turn conversation (9 turns with one tool call, then a
 * final answer). The baseline replays the very same 10 request bodies with
 * raw `fetch` and reads every response, so it holds the server's and HTTP's
 * time; the loop's own cost per turn is (loop − baseline) / 10.
 */
import { z } from "zod";
import { defineTool } from "../src/tool/define_tool.ts";
import { ToolRegistry } from "../src/tool/registry.ts";
import { Session } from "../src/session/session.ts";
import { runAgentToEnd } from "../src/loop/agent_loop.ts";
import { createModelClient } from "../src/loop/client.ts";
import { type ScriptedAnswer, startFakeLlm } from "../tests/_helpers/fake_llm.ts";

const TURNS = 10;
const echo = defineTool({
  name: "Echo",
  description: "Repeats its input",
  sideEffect: "None",
  input: z.strictObject({ text: z.string().describe("What to repeat") }),
  execute: (i) => Promise.resolve(`echo: ${i.text}`),
});
const script = (): ScriptedAnswer[] => [
  ...Array.from({ length: TURNS - 1 }, (_, i) => ({
    text: "Working on it.",
    toolCalls: [{ name: "Echo", arguments: { text: `step ${i}` } }],
  })),
  { text: "All done, nothing else to do." },
];

const llm = await startFakeLlm([]);
const dir = await Deno.makeTempDir({ prefix: "paddock-loop-bench-" });
const session = new Session({ roots: [dir], outputDir: dir });
const client = createModelClient({ baseUrl: llm.baseUrl });
const registry = new ToolRegistry([echo]);

async function conversation(stream: boolean): Promise<void> {
  llm.enqueue(...script());
  const r = await runAgentToEnd({
    client,
    model: "m",
    registry,
    prompt: "go",
    stream,
    runOptions: { session },
  });
  if (r.stopReason !== "completed" || r.turns !== TURNS) throw new Error(`unexpected result ${r.stopReason}`);
}

// record the request bodies of one conversation per mode, for the baselines
const bodies: Record<string, string[]> = {};
for (const stream of [true, false]) {
  const from = llm.requests.length;
  await conversation(stream);
  bodies[String(stream)] = llm.requests.slice(from).map((r) => JSON.stringify(r.body));
}
llm.requests.length = 0;

async function replay(stream: boolean): Promise<void> {
  llm.enqueue(...script());
  for (const body of bodies[String(stream)]) {
    const res = await fetch(`${llm.baseUrl}/chat/completions`, {
      method: "POST",
      headers: { "content-type": "application/json", authorization: "Bearer x" },
      body,
    });
    await res.text();
  }
  llm.requests.length = 0;
}

for (const stream of [true, false]) {
  const group = stream ? "10 turns, streaming" : "10 turns, JSON";
  Deno.bench(
    { name: `raw fetch replay (${group})`, group, baseline: true },
    async () => await replay(stream),
  );
  Deno.bench({ name: `runAgent (${group})`, group }, async () => {
    await conversation(stream);
    llm.requests.length = 0;
  });
}

globalThis.addEventListener("unload", () => {
  void llm.close();
  Deno.removeSync(dir, { recursive: true });
});

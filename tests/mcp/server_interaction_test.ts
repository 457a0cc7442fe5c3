/**
 * Server mode: AskUserQuestion and ExitPlanMode asked through the client's
 * elicitation, hidden from clients without it. Uses the SDK's client.
 */
import assert from "node:assert/strict";
// @ts-types="@modelcontextprotocol/sdk/client/index"
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
// @ts-types="@modelcontextprotocol/sdk/client/streamableHttp"
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
// @ts-types="@modelcontextprotocol/sdk/types"
import {
  type ElicitRequest,
  ElicitRequestSchema,
  type ElicitResult,
} from "@modelcontextprotocol/sdk/types.js";
import { mcpInteraction } from "../../src/mcp/interaction.ts";
import { serveMcpHttp } from "../../src/mcp/server.ts";
import { createRuntime } from "../../src/runtime/runtime.ts";
import { createAskUserQuestionTool } from "../../src/tools/ask_user_question.ts";
import { createExitPlanModeTool, enterPlanMode } from "../../src/tools/exit_plan_mode.ts";
import { todoWriteTool } from "../../src/tools/todo_write.ts";
import { z } from "zod";
import { defineTool } from "../../src/tool/define_tool.ts";
import { tempWorkspace } from "../_helpers/workspace.ts";

const QUESTION = {
  questions: [
    {
      question: "Which database?",
      header: "Database",
      options: [{ label: "Postgres", description: "Relational" }, { label: "SQLite", description: "A file" }],
    },
    {
      question: "Which extras?",
      header: "Extras",
      multiSelect: true,
      options: [{ label: "Cache", description: "Faster" }, { label: "Search", description: "Find" }],
    },
  ],
};

function runtimeFor(dir: string, outputDir: string) {
  const interaction = mcpInteraction();
  return createRuntime({
    roots: [dir],
    outputDir,
    tools: [
      createAskUserQuestionTool(interaction),
      createExitPlanModeTool(interaction),
      todoWriteTool,
      defineTool({
        name: "Change",
        description: "Changes something",
        sideEffect: "Mutating",
        input: z.strictObject({}),
        execute: () => Promise.resolve("changed"),
      }),
    ],
  });
}

async function connect(url: string, client: Client): Promise<Client> {
  await client.connect(new StreamableHTTPClientTransport(new URL(url)));
  return client;
}

const textOf = (r: Record<string, unknown>) => (r.content as { text: string }[])[0].text;

Deno.test("server mode hides AskUserQuestion and ExitPlanMode from a client without elicitation and refuses calls to them", async () => {
  await using ws = await tempWorkspace();
  await using rt = runtimeFor(ws.dir, ws.session.outputDir());
  await using http = serveMcpHttp(rt, { port: 0 });
  const client = await connect(http.url, new Client({ name: "plain", version: "1" }));
  try {
    assert.deepEqual((await client.listTools()).tools.map((t) => t.name), ["TodoWrite", "Change"]);
    assert.match(
      client.getInstructions() ?? "",
      /AskUserQuestion, ExitPlanMode\) are offered only to clients/,
    );
    const r = await client.callTool({ name: "AskUserQuestion", arguments: QUESTION });
    assert.equal(r.isError, true);
    assert.match(
      textOf(r),
      /AskUserQuestion is not offered to this MCP client: .*does not support elicitation/,
    );
  } finally {
    await client.close();
  }
});

Deno.test("server mode asks AskUserQuestion and ExitPlanMode through the calling client's elicitation", async () => {
  await using ws = await tempWorkspace();
  await using rt = runtimeFor(ws.dir, ws.session.outputDir());
  await using http = serveMcpHttp(rt, { port: 0 });
  const asked: ElicitRequest["params"][] = [];
  const replies: ElicitResult[] = [];
  // `elicitation: {}` is the older form of the capability: it means form mode
  const client = new Client({ name: "asker", version: "1" }, { capabilities: { elicitation: {} } });
  client.setRequestHandler(ElicitRequestSchema, (req) => {
    asked.push(req.params);
    return replies.shift() ?? { action: "cancel" };
  });
  await connect(http.url, client);
  try {
    const listed = (await client.listTools()).tools.map((t) => t.name);
    assert.deepEqual(listed, ["AskUserQuestion", "ExitPlanMode", "TodoWrite", "Change"]);

    // the confirmation of a Mutating call is asked the same way
    replies.push({ action: "accept", content: { allow: true } });
    const changed = await client.callTool({ name: "Change", arguments: {} });
    assert.ok(!changed.isError, textOf(changed));
    assert.match((asked.shift() as { message: string }).message, /^Allow Change/);

    replies.push({ action: "accept", content: { q1: "SQLite", q2: ["Cache", "Search"] } });
    const answered = await client.callTool({ name: "AskUserQuestion", arguments: QUESTION });
    assert.ok(!answered.isError, textOf(answered));
    assert.match(textOf(answered), /"Which database\?" = "SQLite"\n"Which extras\?" = "Cache, Search"/);
    const form = asked[0] as { requestedSchema: { properties: Record<string, Record<string, unknown>> } };
    assert.deepEqual(form.requestedSchema.properties.q1.oneOf, [
      { const: "Postgres", title: "Postgres: Relational" },
      { const: "SQLite", title: "SQLite: A file" },
    ]);
    assert.equal(form.requestedSchema.properties.q2.type, "array");

    replies.push({ action: "accept", content: { q1: "Postgres", q1_other: "MariaDB please" } });
    const own = await client.callTool({ name: "AskUserQuestion", arguments: QUESTION });
    assert.match(textOf(own), /"Which database\?" = "MariaDB please"\n"Which extras\?" = "\(no answer\)"/);

    replies.push({ action: "decline" });
    const declined = await client.callTool({ name: "AskUserQuestion", arguments: QUESTION });
    assert.equal(declined.isError, true);
    assert.match(textOf(declined), /The user did not answer \(they chose "decline"\)/);

    enterPlanMode(rt.session);
    replies.push({ action: "accept", content: { approve: false, feedback: "Add tests first" } });
    const rejected = await client.callTool({ name: "ExitPlanMode", arguments: { plan: "1. Fix the bug" } });
    assert.equal(rejected.isError, true);
    assert.match(textOf(rejected), /did not approve the plan: "Add tests first"/);
    assert.equal(rt.session.mode, "plan");
    assert.match((asked.at(-1) as { message: string }).message, /1\. Fix the bug/);

    replies.push({ action: "accept", content: { approve: true } });
    const approved = await client.callTool({ name: "ExitPlanMode", arguments: { plan: "1. Fix the bug" } });
    assert.ok(!approved.isError, textOf(approved));
    assert.equal(rt.session.mode, "default");
    assert.equal(asked.length, 5);
  } finally {
    await client.close();
  }
});

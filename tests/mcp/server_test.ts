/**
 * Server mode, driven by MCP clients no one here wrote: the SDK's own client
 * (over HTTP, and over stdio against a real `paddock mcp` process) and the
 * MCP inspector's CLI from npm.
 */
import assert from "node:assert/strict";
// @ts-types="@modelcontextprotocol/sdk/client/index"
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
// @ts-types="@modelcontextprotocol/sdk/client/stdio"
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
// @ts-types="@modelcontextprotocol/sdk/client/streamableHttp"
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
// @ts-types="@modelcontextprotocol/sdk/types"
import { ElicitRequestSchema, ToolListChangedNotificationSchema } from "@modelcontextprotocol/sdk/types.js";
import { z } from "zod";
import { main } from "../../src/cli/main.ts";
import { serveMcpHttp } from "../../src/mcp/server.ts";
import { defineTool } from "../../src/tool/define_tool.ts";
import { createRuntime } from "../../src/runtime/runtime.ts";
import { tempWorkspace } from "../_helpers/workspace.ts";

const CLI = new URL("../../cli.ts", import.meta.url).pathname;
const INSPECTOR = "@modelcontextprotocol/inspector-cli@1.0.3";

function testTools(log: string[]) {
  return [
    defineTool({
      name: "Peek",
      description: "Reads a value",
      sideEffect: "ReadOnly",
      input: z.strictObject({ key: z.string().describe("Key") }),
      execute: (i) =>
        Promise.resolve({
          text: `value of ${i.key}`,
          images: [{ data: btoa("img"), mediaType: "image/png" }],
        }),
    }),
    defineTool({
      name: "Change",
      description: "Changes a value",
      sideEffect: "Mutating",
      input: z.strictObject({ key: z.string().describe("Key") }),
      execute: (i) => {
        log.push(`changed ${i.key}`);
        return Promise.resolve("changed");
      },
    }),
    defineTool({
      name: "Fetch",
      description: "Reaches out",
      sideEffect: "Network",
      input: z.strictObject({}),
      execute: () => Promise.resolve("fetched"),
    }),
  ];
}

async function connectHttp(url: string, client: Client): Promise<Client> {
  await client.connect(new StreamableHTTPClientTransport(new URL(url)));
  return client;
}

Deno.test("HTTP server mode: tools listed with annotations from their side-effect class, calls run through the runner", async () => {
  await using ws = await tempWorkspace();
  const log: string[] = [];
  await using rt = createRuntime({
    roots: [ws.dir],
    outputDir: ws.session.outputDir(),
    tools: testTools(log),
  });
  await using http = serveMcpHttp(rt, { port: 0 });
  assert.equal(http.url, `http://127.0.0.1:${http.port}/mcp`);
  const client = await connectHttp(http.url, new Client({ name: "sdk-test", version: "1" }));
  try {
    const { tools } = await client.listTools();
    const byName = Object.fromEntries(tools.map((t) => [t.name, t]));
    assert.deepEqual(Object.keys(byName), ["Peek", "Change", "Fetch"]);
    assert.deepEqual(byName.Peek.annotations, {
      readOnlyHint: true,
      destructiveHint: false,
      openWorldHint: false,
    });
    assert.deepEqual(byName.Change.annotations, {
      readOnlyHint: false,
      destructiveHint: true,
      openWorldHint: false,
    });
    assert.deepEqual(byName.Fetch.annotations, {
      readOnlyHint: false,
      destructiveHint: false,
      openWorldHint: true,
    });
    assert.deepEqual((byName.Peek.inputSchema as { required: string[] }).required, ["key"]);

    const peek = await client.callTool({ name: "Peek", arguments: { key: "k" } });
    assert.deepEqual(peek.content, [
      { type: "text", text: "value of k" },
      { type: "image", data: btoa("img"), mimeType: "image/png" },
    ]);
    assert.ok(!peek.isError);

    // default mode asks for Mutating calls; this client cannot be asked, so the runner refuses
    const change = await client.callTool({ name: "Change", arguments: { key: "k" } });
    assert.equal(change.isError, true);
    assert.match(
      (change.content as { text: string }[])[0].text,
      /^Error: .*this MCP client cannot ask: start 'paddock mcp' with --allow/,
    );
    assert.deepEqual(log, []);

    const bad = await client.callTool({ name: "Peek", arguments: { nope: 1 } });
    assert.equal(bad.isError, true);
    assert.match(
      (bad.content as { text: string }[])[0].text,
      /Invalid input for Peek: .*missing required parameter "key"/,
    );
    const unknown = await client.callTool({ name: "Peeek", arguments: {} });
    assert.match(
      (unknown.content as { text: string }[])[0].text,
      /No tool named "Peeek": did you mean "Peek"/,
    );
  } finally {
    await client.close();
  }
});

Deno.test("HTTP server mode: confirmations are asked through the client's elicitation, and tool changes are announced", async () => {
  await using ws = await tempWorkspace();
  const log: string[] = [];
  await using rt = createRuntime({
    roots: [ws.dir],
    outputDir: ws.session.outputDir(),
    tools: testTools(log),
  });
  await using http = serveMcpHttp(rt, { port: 0 });
  const asked: string[] = [];
  let answer: "yes" | "no" = "yes";
  const client = new Client({ name: "sdk-test", version: "1" }, {
    capabilities: { elicitation: { form: {} } },
  });
  client.setRequestHandler(ElicitRequestSchema, (req) => {
    asked.push((req.params as { message: string }).message);
    return answer === "yes" ? { action: "accept", content: { allow: true } } : { action: "decline" };
  });
  let announced!: () => void;
  const changed = new Promise<void>((r) => (announced = r));
  client.setNotificationHandler(ToolListChangedNotificationSchema, () => announced());
  await connectHttp(http.url, client);
  try {
    const yes = await client.callTool({ name: "Change", arguments: { key: "a" } });
    assert.ok(!yes.isError, JSON.stringify(yes));
    assert.deepEqual(log, ["changed a"]);
    assert.match(asked[0], /^Allow Change/);
    answer = "no";
    const no = await client.callTool({ name: "Change", arguments: { key: "b" } });
    assert.equal(no.isError, true);
    assert.match(
      (no.content as { text: string }[])[0].text,
      /The user denied "Change": the person answered "decline"/,
    );
    assert.deepEqual(log, ["changed a"]);

    // a client keeps an SSE stream open for announcements; open it, then change the registry
    rt.registry.unregister("Fetch");
    await changed;
    assert.deepEqual((await client.listTools()).tools.map((t) => t.name), ["Peek", "Change"]);
  } finally {
    await client.close();
  }
});

Deno.test("HTTP server mode refuses other paths, missing or unknown sessions and foreign Host headers", async () => {
  await using ws = await tempWorkspace();
  await using rt = createRuntime({ roots: [ws.dir], tools: [] });
  await using http = serveMcpHttp(rt, { port: 0 });
  const other = await fetch(http.url.replace("/mcp", "/other"));
  assert.equal(other.status, 404);
  await other.body?.cancel();
  const noSession = await fetch(http.url, { headers: { accept: "text/event-stream" } });
  assert.equal(noSession.status, 400);
  await noSession.body?.cancel();
  const stale = await fetch(http.url, {
    method: "POST",
    headers: {
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
      "mcp-session-id": "nope",
    },
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" }),
  });
  assert.equal(stale.status, 404);
  assert.match((await stale.json()).error.message, /Unknown MCP session "nope"/);

  // DNS rebinding: a page on another name that resolves to 127.0.0.1 sends its own Host header
  // (fetch always sends the real one, so this request is written by hand)
  const body = JSON.stringify({
    jsonrpc: "2.0",
    id: 1,
    method: "initialize",
    params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "x", version: "1" } },
  });
  const conn = await Deno.connect({ hostname: "127.0.0.1", port: http.port });
  await conn.write(new TextEncoder().encode(
    `POST /mcp HTTP/1.1\r\nHost: evil.example:${http.port}\r\nContent-Type: application/json\r\n` +
      `Accept: application/json, text/event-stream\r\nContent-Length: ${body.length}\r\nConnection: close\r\n\r\n${body}`,
  ));
  const reply = await new Response(conn.readable).text();
  assert.match(reply, /^HTTP\/1\.1 403/);
  assert.match(reply, /Invalid Host header: evil\.example/);
});

Deno.test("paddock mcp --http serves until the signal, printing its URL", async () => {
  await using ws = await tempWorkspace();
  await ws.write("a.txt", "hello\n");
  const controller = new AbortController();
  const errs: string[] = [];
  let sawUrl!: (url: string) => void;
  const urlP = new Promise<string>((r) => (sawUrl = r));
  const run = main(
    ["mcp", "--http", "--port", "0", "--root", ws.dir, "--output-dir", ws.session.outputDir()],
    {
      out: () => {},
      err: (t) => {
        errs.push(t);
        const m = /serving \d+ tools at (http:\/\/\S+)/.exec(t);
        if (m) sawUrl(m[1]);
      },
      stdin: new ReadableStream(),
      isTerminal: false,
      env: {},
      cwd: ws.dir,
      signal: controller.signal,
    },
  );
  const url = await Promise.race([
    urlP,
    run.then(() => assert.fail(`paddock mcp stopped: ${errs.join("")}`)),
  ]);
  const client = await connectHttp(url, new Client({ name: "sdk-test", version: "1" }));
  try {
    const names = (await client.listTools()).tools.map((t) => t.name);
    assert.ok(names.includes("Read"), names.join());
    const read = await client.callTool({ name: "Read", arguments: { file_path: ws.path("a.txt") } });
    assert.match((read.content as { text: string }[])[0].text, /1\thello/);
    assert.ok(!names.includes("AskUserQuestion"), "no elicitation, so no one to ask");
    const asker = new Client({ name: "asker", version: "1" }, {
      capabilities: { elicitation: { form: {} } },
    });
    asker.setRequestHandler(ElicitRequestSchema, () => ({ action: "accept", content: { q1: "Blue" } }));
    await connectHttp(url, asker);
    try {
      assert.ok((await asker.listTools()).tools.some((t) => t.name === "AskUserQuestion"));
      const answered = await asker.callTool({
        name: "AskUserQuestion",
        arguments: {
          questions: [{
            question: "Which colour?",
            header: "Colour",
            options: [{ label: "Red", description: "Warm" }, { label: "Blue", description: "Cool" }],
          }],
        },
      });
      assert.match((answered.content as { text: string }[])[0].text, /"Which colour\?" = "Blue"/);
    } finally {
      await asker.close();
    }
  } finally {
    await client.close();
    controller.abort();
  }
  assert.equal(await run, 0);
});

Deno.test("paddock mcp --mcp-config proxies another server's tools, annotations kept", async () => {
  await using ws = await tempWorkspace();
  const config = await ws.write(
    "proxied.json",
    JSON.stringify({
      mcpServers: {
        ev: {
          command: Deno.execPath(),
          args: ["run", "-A", "npm:@modelcontextprotocol/server-everything@2026.8.31", "stdio"],
        },
      },
    }),
  );
  const controller = new AbortController();
  let sawUrl!: (url: string) => void;
  const urlP = new Promise<string>((r) => (sawUrl = r));
  const errs: string[] = [];
  const run = main([
    "mcp",
    "--http",
    "--root",
    ws.dir,
    "--output-dir",
    ws.session.outputDir(),
    "--mcp-config",
    config,
  ], {
    out: () => {},
    err: (t) => {
      errs.push(t);
      const m = /serving \d+ tools at (http:\/\/\S+)/.exec(t);
      if (m) sawUrl(m[1]);
    },
    stdin: new ReadableStream(),
    isTerminal: false,
    env: Deno.env.toObject(), // proxies and certificates, in case the server must be downloaded
    cwd: ws.dir,
    signal: controller.signal,
  });
  const url = await Promise.race([
    urlP,
    run.then(() => assert.fail(`paddock mcp stopped: ${errs.join("")}`)),
  ]);
  const client = await connectHttp(url, new Client({ name: "sdk-test", version: "1" }));
  try {
    const echo = (await client.listTools()).tools.find((t) => t.name === "mcp__ev__echo");
    assert.ok(echo, errs.join(""));
    assert.equal(echo.annotations?.readOnlyHint, true);
    const r = await client.callTool({ name: "mcp__ev__echo", arguments: { message: "through two hops" } });
    assert.deepEqual(r.content, [{ type: "text", text: "Echo: through two hops" }]);
  } finally {
    await client.close();
    controller.abort();
  }
  assert.equal(await run, 0);
});

Deno.test("paddock mcp over stdio, as a real process, with the SDK's stdio client", async () => {
  await using ws = await tempWorkspace();
  await ws.write("a.txt", "from stdio\n");
  const transport = new StdioClientTransport({
    command: Deno.execPath(),
    args: [
      "run",
      "-A",
      CLI,
      "mcp",
      "--root",
      ws.dir,
      "--output-dir",
      ws.session.outputDir(),
      "--permission-mode",
      "plan",
    ],
    env: Deno.env.toObject(),
    stderr: "pipe",
  });
  const client = new Client({ name: "sdk-test", version: "1" });
  await client.connect(transport);
  try {
    const { tools } = await client.listTools();
    const read = tools.find((t) => t.name === "Read");
    assert.ok(read, tools.map((t) => t.name).join());
    assert.equal(read.annotations?.readOnlyHint, true);
    const r = await client.callTool({ name: "Read", arguments: { file_path: ws.path("a.txt") } });
    assert.match((r.content as { text: string }[])[0].text, /1\tfrom stdio/);
    // plan mode, set by the flag, refuses writes
    const w = await client.callTool({
      name: "Write",
      arguments: { file_path: ws.path("b.txt"), content: "x" },
    });
    assert.equal(w.isError, true);
    await assert.rejects(Deno.stat(ws.path("b.txt")), Deno.errors.NotFound);
  } finally {
    await client.close();
  }
});

const hasNpx = (() => {
  try {
    return new Deno.Command("npx", { args: ["--version"], stdout: "null", stderr: "null" }).outputSync()
      .success;
  } catch {
    return false;
  }
})();

/** Runs the inspector CLI; returns its stdout parsed as JSON. */
async function inspector(
  ws: { dir: string; write: (p: string, c: string) => Promise<string> },
  args: string[],
) {
  // inspector-cli 1.0.3 looks for "../package.json" from the current directory before importing
  // its own: give it a folder where that path exists
  await ws.write("package.json", "{}");
  await Deno.mkdir(`${ws.dir}/run`, { recursive: true });
  const out = await new Deno.Command("npx", {
    args: ["-y", INSPECTOR, "--cli", ...args],
    cwd: `${ws.dir}/run`,
    stdout: "piped",
    stderr: "piped",
  }).output();
  const text = new TextDecoder().decode(out.stdout);
  assert.ok(out.success, `${text}\n${new TextDecoder().decode(out.stderr)}`);
  return JSON.parse(text);
}

Deno.test({
  name: "the MCP inspector CLI lists and calls paddock's tools over stdio and HTTP",
  ignore: !hasNpx,
  async fn() {
    await using ws = await tempWorkspace();
    await ws.write("note.txt", "inspected\n");
    const paddock = [
      Deno.execPath(),
      "run",
      "-A",
      CLI,
      "mcp",
      "--root",
      ws.dir,
      "--output-dir",
      ws.session.outputDir(),
    ];
    const listed = await inspector(ws, [...paddock, "--method", "tools/list"]);
    const grep = listed.tools.find((t: { name: string }) => t.name === "Grep");
    assert.ok(grep, JSON.stringify(listed).slice(0, 500));
    assert.equal(grep.annotations.readOnlyHint, true);
    const called = await inspector(ws, [
      ...paddock,
      "--method",
      "tools/call",
      "--tool-name",
      "Read",
      "--tool-arg",
      `file_path=${ws.path("note.txt")}`,
    ]);
    assert.match(called.content[0].text, /1\tinspected/);

    await using rt = createRuntime({
      roots: [ws.dir],
      outputDir: ws.session.outputDir(),
      tools: testTools([]),
    });
    await using http = serveMcpHttp(rt, { port: 0 });
    const overHttp = await inspector(ws, [
      http.url,
      "--transport",
      "http",
      "--method",
      "tools/call",
      "--tool-name",
      "Peek",
      "--tool-arg",
      "key=z",
    ]);
    assert.equal(overHttp.content[0].text, "value of z");
  },
});

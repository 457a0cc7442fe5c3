/**
 * The MCP client against real third-party servers from npm, started the way a
 * user's .mcp.json would start them (`deno run -A npm:<package>`).
 */
import assert from "node:assert/strict";
import { attachMcpServers } from "../../src/mcp/manager.ts";
import { createRuntime } from "../../src/runtime/runtime.ts";
import { tempWorkspace } from "../_helpers/workspace.ts";

/** Pinned so the tests do not change under us; downloaded on first run into Deno's npm cache. */
const EVERYTHING = "npm:@modelcontextprotocol/server-everything@2026.8.31";
const FILESYSTEM = "npm:@modelcontextprotocol/server-filesystem@2026.8.31";
/** The first start may download the package. */
const START_TIMEOUT_MS = 120_000;

Deno.test("server-everything: tools registered with schemas and classes, results with text, images and resources", async () => {
  await using ws = await tempWorkspace();
  const config = await ws.write(
    ".mcp.json",
    JSON.stringify({
      mcpServers: { everything: { command: "deno", args: ["run", "-A", EVERYTHING, "stdio"] } },
    }),
  );
  await using rt = createRuntime({
    roots: [ws.dir],
    outputDir: ws.session.outputDir(),
    tools: [],
    mode: "bypassPermissions",
  });
  const manager = await attachMcpServers(rt, config, {
    trustAnnotations: true,
    startTimeoutMs: START_TIMEOUT_MS,
  });
  assert.equal(manager.status()[0].state, "connected", manager.status()[0].error);

  const echo = rt.registry.require("mcp__everything__echo");
  assert.equal(echo.sideEffect, "ReadOnly"); // readOnlyHint: true
  assert.equal(rt.registry.require("mcp__everything__toggle-simulated-logging").sideEffect, "Network"); // neither hint
  const schema = rt.registry.schemaOf("mcp__everything__echo") as {
    properties: Record<string, unknown>;
    required: string[];
  };
  assert.deepEqual(Object.keys(schema.properties), ["message"]);
  assert.deepEqual(schema.required, ["message"]);
  assert.ok(!("$schema" in schema));
  const definition = rt.registry.definitions().find((d) => d.function.name === "mcp__everything__get-sum");
  assert.ok(definition, "get-sum is offered to the model");
  assert.ok(rt.registry.has("ListMcpResources") && rt.registry.has("ReadMcpResource"));

  const r = await rt.run("mcp__everything__echo", { message: "hi there" });
  assert.equal(r.text, "Echo: hi there");
  assert.ok(r.ok);

  const sum = await rt.run("mcp__everything__get-sum", { a: 2, b: 40 });
  assert.match(sum.text, /42/);

  const missing = await rt.run("mcp__everything__get-sum", { a: 2 });
  assert.equal(missing.error?.code, "invalid_input");
  assert.match(missing.text, /missing required parameter "b" \(number\)/);

  const image = await rt.run("mcp__everything__get-tiny-image", {});
  assert.equal(image.images?.length, 1);
  assert.equal(image.images![0].mediaType, "image/png");
  assert.match(image.text, /\[image image\/png, \d+ bytes, attached\]/);

  // an abort ends the call at once (the server is sent a cancellation); progress streamed before it is kept
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(), 1_500);
  const long = await rt.run("mcp__everything__trigger-long-running-operation", { duration: 30, steps: 60 }, {
    signal: controller.signal,
  });
  clearTimeout(timer);
  assert.equal(long.error?.code, "aborted");
  assert.match(long.text, /Output before it stopped:\nprogress 1\/60/);

  const blobRef = await rt.run("mcp__everything__get-resource-reference", {
    resourceType: "Blob",
    resourceId: 2,
  });
  const saved = /saved to "([^"]+)"/.exec(blobRef.text)?.[1];
  assert.ok(saved, blobRef.text);
  assert.ok(saved.startsWith(ws.session.outputDir()));
  assert.ok((await Deno.stat(saved)).size > 0);
});

Deno.test("server-everything: ListMcpResources and ReadMcpResource, blobs saved to a named file", async () => {
  await using ws = await tempWorkspace();
  const config = await ws.write(
    ".mcp.json",
    JSON.stringify({ mcpServers: { ev: { command: "deno", args: ["run", "-A", EVERYTHING, "stdio"] } } }),
  );
  await using rt = createRuntime({ roots: [ws.dir], outputDir: ws.session.outputDir(), tools: [] });
  await attachMcpServers(rt, config, { trustAnnotations: true, startTimeoutMs: START_TIMEOUT_MS });

  const list = await rt.run("ListMcpResources", {});
  assert.ok(list.ok, list.text);
  assert.match(
    list.text,
    /- demo:\/\/resource\/static\/document\/architecture\.md \(architecture\.md, text\/markdown\) \[server "ev"\]/,
  );
  assert.match(list.text, /demo:\/\/resource\/dynamic\/blob\/\{resourceId\}/);
  const one = await rt.run("ListMcpResourcesTool", { server: "ev" }); // the alias
  assert.ok(one.ok);
  const unknown = await rt.run("ListMcpResources", { server: "nope" });
  assert.equal(unknown.error?.code, "not_found");
  assert.match(unknown.text, /No MCP server named "nope": the configured servers are "ev"/);

  const text = await rt.run("ReadMcpResource", {
    server: "ev",
    uri: "demo://resource/static/document/features.md",
  });
  assert.ok(text.ok, text.text);
  assert.ok(text.text.length > 100);
  assert.ok(!text.text.includes("saved to"));

  const blob = await rt.run("ReadMcpResource", { server: "ev", uri: "demo://resource/dynamic/blob/3" });
  const file = /saved to "([^"]+)"/.exec(blob.text)?.[1];
  assert.ok(file, blob.text);
  const data = blob.data as { contents: { file?: string; bytes?: number }[] };
  assert.equal(data.contents[0].file, file);
  assert.equal((await Deno.stat(file)).size, data.contents[0].bytes);
});

Deno.test("server-filesystem: started with no folder, it works in the roots Paddock offers; destructive tools are Mutating", async () => {
  await using ws = await tempWorkspace();
  const config = await ws.write(
    ".mcp.json",
    JSON.stringify({ mcpServers: { fs: { command: "deno", args: ["run", "-A", FILESYSTEM] } } }),
  );
  await using rt = createRuntime({ roots: [ws.dir], outputDir: ws.session.outputDir(), tools: [] });
  const manager = await attachMcpServers(rt, config, {
    trustAnnotations: true,
    startTimeoutMs: START_TIMEOUT_MS,
  });
  assert.equal(manager.status()[0].state, "connected", manager.status()[0].error);
  assert.equal(rt.registry.require("mcp__fs__write_file").sideEffect, "Mutating");
  assert.equal(rt.registry.require("mcp__fs__read_text_file").sideEffect, "ReadOnly");
  // the server asks for the roots after the handshake and applies them on its own time: wait until it has
  for (const deadline = Date.now() + START_TIMEOUT_MS; Date.now() < deadline;) {
    const listed = await rt.run("mcp__fs__list_allowed_directories", {});
    if (listed.text.includes(ws.dir)) break;
    await new Promise((r) => setTimeout(r, 20));
  }

  // default mode asks for Mutating calls; there is no approver, so the call is refused
  const refused = await rt.run("mcp__fs__write_file", { path: ws.path("a.txt"), content: "x" });
  assert.equal(refused.error?.code, "permission_denied");
  await assert.rejects(Deno.stat(ws.path("a.txt")), Deno.errors.NotFound);

  rt.session.setMode("acceptEdits");
  const wrote = await rt.run("mcp__fs__write_file", { path: ws.path("a.txt"), content: "hello from mcp" });
  assert.ok(wrote.ok, wrote.text);
  assert.equal(await Deno.readTextFile(ws.path("a.txt")), "hello from mcp");
  const read = await rt.run("mcp__fs__read_text_file", { path: ws.path("a.txt") });
  assert.equal(read.text, "hello from mcp");

  const allowed = await rt.run("mcp__fs__list_allowed_directories", {});
  assert.ok(allowed.text.includes(ws.dir), allowed.text);
  const outside = await rt.run("mcp__fs__read_text_file", { path: "/etc/hostname" });
  assert.ok(!outside.ok);
  assert.equal(outside.error?.code, "execution_failed");
  assert.match(outside.text, /^Error: MCP tool "read_text_file" on server "fs" failed: .*(denied|outside)/i);
});

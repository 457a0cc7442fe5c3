/**
 * Connection lifecycle: a server that dies, one that never answers, one that
 * is missing, tools that change, calls that are cancelled or time out.
 */
import assert from "node:assert/strict";
import { z } from "zod";
import { defineTool } from "../../src/tool/define_tool.ts";
import type { McpEvent } from "../../src/mcp/client.ts";
import { attachMcpServers, McpManager } from "../../src/mcp/manager.ts";
import { serveMcpHttp } from "../../src/mcp/server.ts";
import { ToolRegistry } from "../../src/tool/registry.ts";
import { createRuntime } from "../../src/runtime/runtime.ts";
import { tempWorkspace } from "../_helpers/workspace.ts";

const EVERYTHING = "npm:@modelcontextprotocol/server-everything@2026.8.31";

/** Resolves with the next event of `type` (and `server`). */
function nextEvent(events: EventTarget, type: McpEvent["type"]): Promise<McpEvent> {
  return new Promise((resolve) =>
    events.addEventListener(type, (e) => resolve((e as CustomEvent<McpEvent>).detail), { once: true })
  );
}
function eventHub(): { target: EventTarget; onEvent: (e: McpEvent) => void } {
  const target = new EventTarget();
  return { target, onEvent: (e) => target.dispatchEvent(new CustomEvent(e.type, { detail: e })) };
}

Deno.test("a stdio server that dies loses its tools, calls say why, and it reconnects", async () => {
  await using ws = await tempWorkspace();
  const config = await ws.write(
    ".mcp.json",
    JSON.stringify({ mcpServers: { ev: { command: "deno", args: ["run", "-A", EVERYTHING, "stdio"] } } }),
  );
  await using rt = createRuntime({ roots: [ws.dir], outputDir: ws.session.outputDir(), tools: [] });
  const hub = eventHub();
  const manager = await attachMcpServers(rt, config, {
    trustAnnotations: true,
    startTimeoutMs: 120_000,
    reconnect: { initialDelayMs: 100 },
    onEvent: hub.onEvent,
  });
  rt.registry.allow("mcp__ev__toggle-simulated-logging");
  const pid = manager.connection("ev").pid;
  assert.ok(pid);
  const disconnected = nextEvent(hub.target, "disconnected");
  const reconnected = nextEvent(hub.target, "connected");
  Deno.kill(pid, "SIGKILL");
  const gone = await disconnected;
  assert.match(gone.message!, /the server process was killed by SIGKILL/);
  assert.ok(!rt.registry.has("mcp__ev__echo"));
  assert.ok(!rt.registry.definitions().some((d) => d.function.name.startsWith("mcp__ev__")));

  const call = await rt.run("mcp__ev__echo", { message: "x" });
  assert.equal(call.error?.code, "unavailable");
  assert.match(
    call.text,
    /^Error: Tool "mcp__ev__echo" is no longer available: MCP server "ev" disconnected \(the server process was killed by SIGKILL/,
  );

  await reconnected;
  assert.equal(manager.status()[0].state, "connected");
  assert.equal((await rt.run("mcp__ev__echo", { message: "back" })).text, "Echo: back");
  assert.ok(
    rt.registry.allowed.has("mcp__ev__toggle-simulated-logging"),
    "the allowed set survives a reconnect",
  );
});

Deno.test("servers that never answer, exit at once or do not exist fail with clear errors", async () => {
  await using ws = await tempWorkspace();
  const config = await ws.write(
    ".mcp.json",
    JSON.stringify({
      mcpServers: {
        silent: { command: "sleep", args: ["30"] },
        crash: { command: "bash", args: ["-c", "echo 'fatal: no token' >&2; exit 3"] },
        missing: { command: "/nonexistent/mcp-server" },
      },
    }),
  );
  await using rt = createRuntime({ roots: [ws.dir], outputDir: ws.session.outputDir(), tools: [] });
  const manager = await attachMcpServers(rt, config, {
    trustAnnotations: true,
    startTimeoutMs: 500,
    reconnect: { maxAttempts: 0 },
  });
  const byName = Object.fromEntries(manager.status().map((s) => [s.name, s]));
  assert.equal(byName.silent.state, "failed");
  assert.match(
    byName.silent.error!,
    /Cannot start MCP server "silent" \(sleep\): no answer to "initialize" within 500 ms/,
  );
  assert.equal(byName.crash.state, "failed");
  assert.match(
    byName.crash.error!,
    /Cannot start MCP server "crash" \(bash\): the server process exited with code 3: fatal: no token/,
  );
  assert.match(
    byName.missing.error!,
    /Cannot start MCP server "missing" \(\/nonexistent\/mcp-server\): program not found/,
  );
  // the resource tools exist (servers are configured) and report the failures
  const list = await rt.run("ListMcpResources", {});
  assert.ok(list.ok);
  assert.match(
    list.text,
    /Servers that could not be listed:\n- "silent": MCP server "silent" is failed: .*it will not be retried/,
  );
});

Deno.test("attachMcpServers refuses a malformed config before starting anything", async () => {
  await using ws = await tempWorkspace();
  const config = await ws.write(".mcp.json", '{"mcpServers":{"a":{"type":"http"}}}');
  await using rt = createRuntime({ roots: [ws.dir], tools: [] });
  await assert.rejects(
    attachMcpServers(rt, config),
    /Invalid MCP config ".*\.mcp\.json": mcpServers\["a"\]\.url must be/,
  );
  assert.equal(rt.registry.names().length, 0);
});

/** A Paddock runtime served over HTTP: the remote end for the HTTP client tests. */
function remoteRuntime(dir: string) {
  let started!: () => void;
  const startedP = new Promise<void>((r) => (started = r));
  let sawAbort!: (why: string) => void;
  const abortedP = new Promise<string>((r) => (sawAbort = r));
  const slow = defineTool({
    name: "Slow",
    description: "Waits until cancelled",
    sideEffect: "None",
    input: z.strictObject({}),
    execute: (_i, ctx) =>
      new Promise<string>((_resolve, reject) => {
        started();
        ctx.signal.addEventListener("abort", () => {
          sawAbort(String((ctx.signal.reason as Error)?.message ?? ctx.signal.reason));
          reject(ctx.signal.reason);
        }, { once: true });
      }),
  });
  const rt = createRuntime({ roots: [dir], tools: [slow] });
  return { rt, started: startedP, aborted: abortedP };
}

Deno.test("HTTP: tools/list_changed re-registers, an abort reaches the server as a cancellation", async () => {
  await using ws = await tempWorkspace();
  const remote = remoteRuntime(ws.dir);
  await using _remoteRt = remote.rt;
  await using http = serveMcpHttp(remote.rt, { port: 0 });
  const config = await ws.write(
    "mcp.json",
    JSON.stringify({ mcpServers: { remote: { type: "http", url: http.url } } }),
  );
  await using rt = createRuntime({ roots: [ws.dir], outputDir: ws.session.outputDir(), tools: [] });
  const hub = eventHub();
  await attachMcpServers(rt, config, { trustAnnotations: true, onEvent: hub.onEvent });
  assert.equal(rt.registry.require("mcp__remote__Slow").sideEffect, "ReadOnly"); // served as readOnlyHint

  const changed = nextEvent(hub.target, "tools_changed");
  remote.rt.registry.register(defineTool({
    name: "Added",
    description: "Added later",
    sideEffect: "Mutating",
    input: z.strictObject({}),
    execute: () => Promise.resolve("added"),
  }));
  assert.deepEqual((await changed).tools, ["mcp__remote__Slow", "mcp__remote__Added"]);
  assert.equal(rt.registry.require("mcp__remote__Added").sideEffect, "Mutating");

  const controller = new AbortController();
  const call = rt.run("mcp__remote__Slow", {}, { signal: controller.signal });
  await remote.started;
  controller.abort();
  const result = await call;
  assert.equal(result.error?.code, "aborted");
  assert.match(await remote.aborted, /aborted/i);
});

Deno.test("HTTP: the per-call time limit cancels the call on the server", async () => {
  await using ws = await tempWorkspace();
  const remote = remoteRuntime(ws.dir);
  await using _remoteRt = remote.rt;
  await using http = serveMcpHttp(remote.rt, { port: 0 });
  await using manager = new McpManager(
    { servers: { r: { type: "http", url: http.url, headers: {} } }, warnings: [] },
    new ToolRegistry(),
    {
      callTimeoutMs: 300,
    },
  );
  await manager.start();
  assert.equal(manager.status()[0].state, "connected", manager.status()[0].error);
  await assert.rejects(
    manager.connection("r").callTool("Slow", {}, { signal: new AbortController().signal }),
    /MCP server "r" did not answer calling "Slow" within 300 ms/,
  );
  assert.ok(await remote.aborted);
});

Deno.test("HTTP: a server that goes away loses its tools and they return when it is back", async () => {
  await using ws = await tempWorkspace();
  const remote = remoteRuntime(ws.dir);
  await using _remoteRt = remote.rt;
  const first = serveMcpHttp(remote.rt, { port: 0 });
  const config = await ws.write(
    "mcp.json",
    JSON.stringify({ mcpServers: { remote: { type: "http", url: first.url } } }),
  );
  await using rt = createRuntime({ roots: [ws.dir], outputDir: ws.session.outputDir(), tools: [] });
  const hub = eventHub();
  await attachMcpServers(rt, config, {
    trustAnnotations: true,
    onEvent: hub.onEvent,
    reconnect: { initialDelayMs: 50, maxDelayMs: 200, maxAttempts: 50 },
  });
  assert.ok(rt.registry.has("mcp__remote__Slow"));
  const disconnected = nextEvent(hub.target, "disconnected");
  await first.close();
  const failed = await rt.run("mcp__remote__Slow", {}, { timeoutMs: 5_000 });
  assert.equal(failed.error?.code, "unavailable", failed.text);
  await disconnected;
  assert.ok(!rt.registry.has("mcp__remote__Slow"));
  const later = await rt.run("mcp__remote__Slow", {});
  assert.match(
    later.text,
    /^Error: Tool "mcp__remote__Slow" is no longer available: MCP server "remote" disconnected/,
  );

  const reconnected = nextEvent(hub.target, "connected");
  await using _second = serveMcpHttp(remote.rt, { port: first.port });
  await reconnected;
  assert.ok(rt.registry.has("mcp__remote__Slow"));
});

Deno.test("HTTP: a server that goes away is noticed without a call, and a failed server can be reconnected by hand", async () => {
  await using ws = await tempWorkspace();
  const remote = remoteRuntime(ws.dir);
  await using _remoteRt = remote.rt;
  const http = serveMcpHttp(remote.rt, { port: 0 });
  const config = await ws.write(
    "mcp.json",
    JSON.stringify({ mcpServers: { remote: { type: "http", url: http.url } } }),
  );
  await using rt = createRuntime({ roots: [ws.dir], outputDir: ws.session.outputDir(), tools: [] });
  const hub = eventHub();
  const manager = await attachMcpServers(rt, config, {
    trustAnnotations: true,
    onEvent: hub.onEvent,
    reconnect: { maxAttempts: 0 },
  });
  const disconnected = nextEvent(hub.target, "disconnected");
  await http.close();
  assert.match((await disconnected).message!, /the HTTP server stopped answering/);
  assert.ok(!rt.registry.has("mcp__remote__Slow"));
  const later = await rt.run("mcp__remote__Slow", {});
  assert.equal(later.error?.code, "unavailable");
  assert.equal(manager.status()[0].state, "failed"); // no reconnect attempts allowed

  // a manual reconnect once the server is back
  await using _again = serveMcpHttp(remote.rt, { port: http.port });
  assert.equal((await manager.reconnect("remote")).state, "connected");
  assert.ok(rt.registry.has("mcp__remote__Slow"));
});

Deno.test("a large MCP result is cut by the shared rule and the marker names the file holding all of it", async () => {
  await using ws = await tempWorkspace();
  const full = Array.from({ length: 20_000 }, (_, i) => `line ${i}`).join("\n");
  await using remote = createRuntime({
    roots: [ws.dir],
    tools: [defineTool({
      name: "Big",
      description: "Returns a long text",
      sideEffect: "None",
      input: z.strictObject({}),
      maxOutputChars: 10_000_000, // the serving side sends it whole; the client side cuts
      execute: () => Promise.resolve(full),
    })],
  });
  await using http = serveMcpHttp(remote, { port: 0 });
  const config = await ws.write(
    "mcp.json",
    JSON.stringify({ mcpServers: { remote: { type: "http", url: http.url } } }),
  );
  await using rt = createRuntime({ roots: [ws.dir], outputDir: ws.session.outputDir(), tools: [] });
  await attachMcpServers(rt, config, { trustAnnotations: true });
  const r = await rt.run("mcp__remote__Big", {});
  assert.ok(r.ok, r.text);
  assert.equal(r.truncated?.originalChars, full.length);
  const path = r.truncated!.fullOutputPath;
  assert.ok(path.startsWith(ws.session.outputDir()), path);
  assert.ok(r.text.startsWith("line 0\nline 1\n"));
  assert.ok(r.text.endsWith("line 19999"));
  assert.ok(r.text.length < full.length);
  assert.match(
    r.text,
    new RegExp(`characters cut here; the full output is in "${path.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}"`),
  );
  assert.equal(await Deno.readTextFile(path), full);
});

Deno.test("HTTP: reconnect attempts back off, doubling up to the longest delay, then the server is marked failed", async () => {
  await using ws = await tempWorkspace();
  const remote = remoteRuntime(ws.dir);
  await using _remoteRt = remote.rt;
  const http = serveMcpHttp(remote.rt, { port: 0 });
  const config = await ws.write(
    "mcp.json",
    JSON.stringify({ mcpServers: { remote: { type: "http", url: http.url } } }),
  );
  await using rt = createRuntime({ roots: [ws.dir], outputDir: ws.session.outputDir(), tools: [] });
  const hub = eventHub();
  const attempts: string[] = [];
  hub.target.addEventListener(
    "reconnecting",
    (e) => attempts.push((e as CustomEvent<McpEvent>).detail.message!),
  );
  const manager = await attachMcpServers(rt, config, {
    trustAnnotations: true,
    onEvent: hub.onEvent,
    reconnect: { initialDelayMs: 20, maxDelayMs: 50, maxAttempts: 3 },
  });
  const failed = nextEvent(hub.target, "failed");
  await http.close();
  await failed;
  assert.deepEqual(attempts, [
    "attempt 1 of 3 in 20 ms",
    "attempt 2 of 3 in 40 ms",
    "attempt 3 of 3 in 50 ms",
  ]);
  assert.equal(manager.status()[0].state, "failed");
  const later = await rt.run("mcp__remote__Slow", {});
  assert.equal(later.error?.code, "unavailable");
});

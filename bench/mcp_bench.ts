/**
 * Cost of one tool call through MCP, against the same call made directly.
 * Setup starts a Paddock runtime served over HTTP on 127.0.0.1 and the
 * npm server-everything over stdio.
 *
 *   deno bench -A bench/mcp_bench.ts
 */
import { z } from "zod";
import { attachMcpServers } from "../src/mcp/manager.ts";
import { serveMcpHttp } from "../src/mcp/server.ts";
import { defineTool } from "../src/tool/define_tool.ts";
import { createRuntime } from "../src/runtime/runtime.ts";

const dir = await Deno.makeTempDir({ prefix: "paddock-mcp-bench-" });
const peek = defineTool({
  name: "Peek",
  description: "Echoes a key",
  sideEffect: "ReadOnly",
  input: z.strictObject({ key: z.string().describe("Key") }),
  execute: (i) => Promise.resolve(`value of ${i.key}`),
});
const remote = createRuntime({ roots: [dir], tools: [peek] });
const http = serveMcpHttp(remote, { port: 0 });
const configPath = `${dir}/.mcp.json`;
await Deno.writeTextFile(
  configPath,
  JSON.stringify({
    mcpServers: {
      remote: { type: "http", url: http.url },
      everything: {
        command: Deno.execPath(),
        args: ["run", "-A", "npm:@modelcontextprotocol/server-everything@2026.8.31", "stdio"],
      },
    },
  }),
);
const local = createRuntime({ roots: [dir], tools: [] });
await attachMcpServers(local, configPath, { startTimeoutMs: 120_000 });

// Servers and runtimes stay up for the whole run; they end with the bench process.

Deno.bench({
  name: "direct runtime.run (no MCP)",
  group: "one tool call",
  baseline: true,
  async fn() {
    await remote.run("Peek", { key: "k" });
  },
});
Deno.bench({
  name: "mcp__ tool over streamable HTTP (Paddock server, loopback)",
  group: "one tool call",
  async fn() {
    const r = await local.run("mcp__remote__Peek", { key: "k" });
    if (!r.ok) throw new Error(r.text);
  },
});
Deno.bench({
  name: "mcp__ tool over stdio (npm server-everything echo)",
  group: "one tool call",
  async fn() {
    const r = await local.run("mcp__everything__echo", { message: "k" });
    if (!r.ok) throw new Error(r.text);
  },
});

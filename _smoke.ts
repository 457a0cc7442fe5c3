import { createRuntime } from "./src/runtime/runtime.ts";
import { attachMcpServers } from "./src/mcp/manager.ts";
const dir = Deno.makeTempDirSync();
Deno.writeTextFileSync(`${dir}/.mcp.json`, JSON.stringify({ mcpServers: {
  everything: { command: "deno", args: ["run", "-A", "npm:@modelcontextprotocol/server-everything@2026.8.31", "stdio"] },
  fs: { command: "deno", args: ["run", "-A", "npm:@modelcontextprotocol/server-filesystem@2026.8.31", dir] },
} }));
await using rt = createRuntime({ roots: [dir], tools: [], mode: "bypassPermissions" });
const t0 = performance.now();
const m = await attachMcpServers(rt, `${dir}/.mcp.json`, { onEvent: (e) => e.type !== "stderr" && console.log("event", e.type, e.server, e.message ?? "") });
console.log("started in", performance.now() - t0);
console.log(JSON.stringify(m.status(), null, 1).slice(0, 3000));
for (const t of rt.registry.list()) console.log(t.name, t.sideEffect);
console.log(await rt.run("mcp__everything__echo", { message: "hi" }));
console.log((await rt.run("mcp__everything__get-tiny-image", {})).text);
console.log((await rt.run("mcp__everything__get-resource-reference", {resourceType: "Blob", resourceId: 2})).text);
console.log((await rt.run("ListMcpResources", {})).text.slice(0, 1500));
console.log((await rt.run("ReadMcpResource", {server: "everything", uri: "demo://resource/dynamic/blob/1"})).text);
console.log((await rt.run("mcp__fs__write_file", {path: `${dir}/a.txt`, content: "hello"})).text);
console.log((await rt.run("mcp__fs__read_text_file", {path: `${dir}/a.txt`})).text);
console.log((await rt.run("mcp__fs__read_text_file", {})).text);

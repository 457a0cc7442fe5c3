import assert from "node:assert/strict";
import { InvalidInputError } from "../../src/errors.ts";
import {
  adaptMcpTool,
  mcpResultToOutput,
  mcpToolName,
  sideEffectFromAnnotations,
} from "../../src/mcp/adapter.ts";
import { loadMcpConfig, parseMcpConfig } from "../../src/mcp/config.ts";
import { mcpResourceTools } from "../../src/mcp/manager.ts";
import { ToolRegistry } from "../../src/tool/registry.ts";
import { tempWorkspace } from "../_helpers/workspace.ts";

Deno.test("parseMcpConfig reads stdio and http servers in the .mcp.json shape", () => {
  const c = parseMcpConfig(
    JSON.stringify({
      mcpServers: {
        fs: {
          command: "npx",
          args: ["-y", "server-fs", "${ROOT}"],
          env: { TOKEN: "${TOKEN:-none}" },
          cwd: "sub",
        },
        web: { type: "http", url: "http://127.0.0.1:3000/mcp", headers: { Authorization: "Bearer ${KEY}" } },
        plain: { type: "stdio", command: "srv" },
      },
    }),
    { env: { ROOT: "/w", KEY: "k1" }, baseDir: "/cfg" },
  );
  assert.deepEqual(c.servers.fs, {
    type: "stdio",
    command: "npx",
    args: ["-y", "server-fs", "/w"],
    env: { TOKEN: "none" },
    cwd: "/cfg/sub",
  });
  assert.deepEqual(c.servers.web, {
    type: "http",
    url: "http://127.0.0.1:3000/mcp",
    headers: { Authorization: "Bearer k1" },
  });
  assert.deepEqual(c.servers.plain, { type: "stdio", command: "srv", args: [], env: {} });
  assert.deepEqual(c.warnings, []);
});

Deno.test("parseMcpConfig names every problem at once, with the server and field", () => {
  let m = "";
  try {
    parseMcpConfig(
      JSON.stringify({
        mcpServers: {
          a: { args: ["x"] },
          b: { type: "http" },
          c: { command: "x", args: "not-a-list", env: { N: 1 } },
          d: { type: "sse", url: "http://h/sse" },
          e: { command: "x", args: ["${MISSING}"] },
          f: { type: "http", url: "ftp://h/x" },
        },
      }),
      { source: "/p/.mcp.json" },
    );
  } catch (err) {
    assert.ok(err instanceof InvalidInputError);
    m = err.message;
  }
  assert.match(m, /^Invalid MCP config "\/p\/.mcp.json": /);
  assert.match(m, /mcpServers\["a"\]\.command must be a non-empty string/);
  assert.match(m, /mcpServers\["b"\]\.url must be a non-empty string/);
  assert.match(m, /mcpServers\["c"\]\.args must be an array of strings/);
  assert.match(m, /mcpServers\["c"\]\.env\["N"\] must be a string, got number/);
  assert.match(m, /mcpServers\["d"\] uses the old "sse" transport.*use "type": "http"/);
  assert.match(m, /mcpServers\["e"\]\.args\[0\] uses "\$\{MISSING\}", which is not set/);
  assert.match(m, /mcpServers\["f"\]\.url must be an http or https URL, got "ftp:\/\/h\/x"/);
});

Deno.test("parseMcpConfig refuses bad JSON and a missing mcpServers object, and warns on unknown fields", () => {
  assert.throws(
    () => parseMcpConfig("{nope", { source: "x.json" }),
    /Invalid MCP config "x.json": not valid JSON/,
  );
  assert.throws(() => parseMcpConfig('{"servers":{}}'), /"mcpServers" must be an object/);
  const c = parseMcpConfig('{"mcpServers":{"a":{"command":"x","disabled":false}}}');
  assert.equal(c.servers.a.type, "stdio");
  assert.match(c.warnings[0], /mcpServers\["a"\] has an unknown field "disabled", ignored/);
});

Deno.test("loadMcpConfig says when the file does not exist", async () => {
  await using ws = await tempWorkspace();
  await assert.rejects(
    loadMcpConfig(ws.path("nope.json")),
    /Cannot read MCP config ".*nope.json": the file does not exist/,
  );
});

Deno.test("mcp tool names are sanitised, kept within 64 characters and unique", () => {
  assert.equal(mcpToolName("my.server", "read file/now"), "mcp__my_server__read_file_now");
  const long1 = mcpToolName("server", "a".repeat(80) + "1");
  const long2 = mcpToolName("server", "a".repeat(80) + "2");
  assert.equal(long1.length, 64);
  assert.equal(long2.length, 64);
  assert.notEqual(long1, long2);
  assert.match(long1, /^mcp__server__a+_[0-9a-f]{8}$/);
  const taken = new Set(["mcp__a_b__t", "mcp__a_b__t_2"]);
  assert.equal(mcpToolName("a.b", "t", (n) => taken.has(n)), "mcp__a_b__t_3");
  const longTaken = mcpToolName("s", "x".repeat(100), () => false);
  assert.equal(mcpToolName("s", "x".repeat(100), (n) => n === longTaken).length, 64);
});

Deno.test("side-effect class comes from annotations: readOnly, destructive, else Network", () => {
  assert.equal(sideEffectFromAnnotations({ readOnlyHint: true, destructiveHint: true }), "ReadOnly");
  assert.equal(sideEffectFromAnnotations({ readOnlyHint: false, destructiveHint: true }), "Mutating");
  assert.equal(sideEffectFromAnnotations({ readOnlyHint: false, destructiveHint: false }), "Network");
  assert.equal(sideEffectFromAnnotations({ openWorldHint: false }), "Network");
  assert.equal(sideEffectFromAnnotations(undefined), "Network");
});

Deno.test("an adapted tool passes the server's JSON Schema through and extra keys with it", () => {
  const tool = adaptMcpTool(
    { server: "s", callTimeoutMs: 5_000, callTool: () => Promise.resolve({ content: [] }) },
    {
      name: "find",
      inputSchema: {
        $schema: "http://json-schema.org/draft-07/schema#",
        type: "object",
        properties: { q: { type: "string" } },
        required: ["q"],
      } as never,
    },
    "mcp__s__find",
  );
  assert.deepEqual(tool.jsonSchema, {
    type: "object",
    properties: { q: { type: "string" } },
    required: ["q"],
  });
  assert.equal(tool.timeoutMs, 5_000);
  assert.deepEqual(tool.input.parse({ q: "x", extra: 1 }), { q: "x", extra: 1 });
  const bad = tool.input.safeParse({});
  assert.ok(!bad.success);
  assert.match(bad.error.issues[0].message, /missing required parameter "q" \(string\)/);
});

Deno.test("MCP results map text, images, audio, links and embedded resources", async () => {
  await using ws = await tempWorkspace();
  const png = btoa("\x89PNG fake");
  const out = await mcpResultToOutput({
    content: [
      { type: "text", text: "hello" },
      { type: "image", data: png, mimeType: "image/png" },
      { type: "audio", data: btoa("RIFFwav"), mimeType: "audio/wav" },
      { type: "resource_link", uri: "file:///x.txt", name: "x.txt" },
      { type: "resource", resource: { uri: "mem://note", mimeType: "text/plain", text: "note body" } },
      {
        type: "resource",
        resource: {
          uri: "mem://bin/data.bin",
          mimeType: "application/octet-stream",
          blob: btoa("\x00\x01\x02"),
        },
      },
    ],
  }, { session: ws.session, server: "s" });
  assert.match(out.text, /^hello\n\[image image\/png, 9 bytes, attached\]/);
  assert.deepEqual(out.images, [{ data: png, mediaType: "image/png" }]);
  assert.match(
    out.text,
    /\[resource link "x.txt": file:\/\/\/x.txt; read it with ReadMcpResource \(server "s"\)\]/,
  );
  assert.match(out.text, /\[resource mem:\/\/note \(text\/plain\)\]\nnote body/);
  assert.equal(out.data!.files.length, 2);
  const [audio, blob] = out.data!.files;
  assert.ok(audio.endsWith(".wav") && out.text.includes(`saved to "${audio}"`));
  assert.ok(blob.endsWith(".bin") && out.text.includes(`saved to "${blob}"`));
  assert.deepEqual(await Deno.readFile(blob), new Uint8Array([0, 1, 2]));
  assert.equal(new TextDecoder().decode(await Deno.readFile(audio)), "RIFFwav");
  const structured = await mcpResultToOutput({ content: [], structuredContent: { t: 1 } }, {
    session: ws.session,
    server: "s",
  });
  assert.equal(structured.text, '{\n  "t": 1\n}');
});

Deno.test("ListMcpResources and ReadMcpResource have strict, described wire schemas", () => {
  const source = {
    serverNames: [],
    listResources: () => Promise.resolve({ resources: [], templates: [], errors: [] }),
    readResource: () => Promise.resolve({ contents: [] }),
  };
  const defs = new ToolRegistry(mcpResourceTools(source)).definitions();
  assert.deepEqual(defs.map((d) => d.function.name), ["ListMcpResources", "ReadMcpResource"]);
  for (const d of defs) {
    const p = d.function.parameters as {
      additionalProperties: boolean;
      properties: Record<string, { description?: string }>;
    };
    assert.equal(p.additionalProperties, false, d.function.name);
    for (const [k, v] of Object.entries(p.properties)) assert.ok(v.description, `${d.function.name}.${k}`);
  }
  assert.deepEqual((defs[1].function.parameters as { required: string[] }).required, ["server", "uri"]);
});

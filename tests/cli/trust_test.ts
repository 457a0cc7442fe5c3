import assert from "node:assert/strict";
import { join } from "node:path";
import { askTrust } from "../../src/cli/cmd_trust.ts";
import type { CliIo } from "../../src/cli/command.ts";
import { loadLayeredSettings } from "../../src/session/trust.ts";
import { tempWorkspace } from "../_helpers/workspace.ts";

function io(cwd: string, env: Record<string, string>, stdin: string): CliIo & { stderr: string[] } {
  const stderr: string[] = [];
  return {
    stderr,
    out: () => {},
    err: (t) => stderr.push(t),
    stdin: new Blob([stdin]).stream(),
    isTerminal: true,
    env,
    cwd,
    signal: new AbortController().signal,
  };
}

Deno.test("The start-up trust question shows the hook and MCP server and records trust only on yes", async () => {
  await using ws = await tempWorkspace();
  await using home = await tempWorkspace("paddock-home-");
  const env = { XDG_CONFIG_HOME: home.dir };
  await ws.write(
    ".paddock/settings.json",
    JSON.stringify({ hooks: { PreToolUse: [{ command: "echo hook" }] } }),
  );
  await ws.write(
    ".mcp.json",
    JSON.stringify({ mcpServers: { docs: { type: "http", url: "https://x.example/mcp" } } }),
  );
  const no = io(ws.dir, env, "n\n");
  assert.equal(await askTrust(ws.dir, no, { projectMcp: true }), false);
  const asked = no.stderr.join("");
  assert.match(asked, /hook PreToolUse: echo hook/);
  assert.match(asked, /MCP server "docs": https:\/\/x\.example\/mcp/);
  assert.match(asked, /Trust this project's hooks and MCP servers\? \[y\/N\] $/);
  assert.equal(loadLayeredSettings(ws.dir, env).trusted, false);
  await assert.rejects(Deno.stat(join(home.dir, "paddock", "trusted.json")), Deno.errors.NotFound);

  assert.equal(await askTrust(ws.dir, io(ws.dir, env, "y\n"), { projectMcp: true }), true);
  assert.equal(loadLayeredSettings(ws.dir, env).trusted, true);
  const again = io(ws.dir, env, "");
  assert.equal(
    await askTrust(ws.dir, again, { projectMcp: true }),
    true,
    "asked once: trusted content is not asked again",
  );
  assert.deepEqual(again.stderr, []);
});

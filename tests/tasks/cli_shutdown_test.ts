import assert from "node:assert/strict";
import { CONFIG, DENO, groupMembers, waitUntil } from "../_helpers/groups.ts";
import { tempWorkspace } from "../_helpers/workspace.ts";

const CLI = new URL("../../cli.ts", import.meta.url).pathname;

async function firstLine(stream: ReadableStream<Uint8Array>): Promise<string> {
  const reader = stream.getReader();
  let text = "";
  while (!text.includes("\n")) {
    const { value, done } = await reader.read();
    if (done) break;
    text += new TextDecoder().decode(value);
  }
  reader.releaseLock();
  return text.split("\n")[0];
}

for (const signal of ["SIGTERM", "SIGINT"] as const) {
  Deno.test(`${signal} to the CLI kills the background groups it started and exits, even while it waits on stdin`, async () => {
    await using ws = await tempWorkspace();
    const child = new Deno.Command(DENO, {
      args: [
        "run",
        "-A",
        "--config",
        CONFIG,
        CLI,
        "exec",
        "-",
        "--root",
        ws.dir,
        "--permission-mode",
        "bypassPermissions",
        "--quiet",
        "--output-dir",
        ws.session.outputDir(),
      ],
      stdin: "piped",
      stdout: "piped",
      stderr: "null",
    }).spawn();
    const stdin = child.stdin.getWriter();
    const call = { tool: "Bash", input: { command: "sleep 100 & sleep 100", run_in_background: true } };
    await stdin.write(new TextEncoder().encode(JSON.stringify(call) + "\n"));
    const result = JSON.parse(await firstLine(child.stdout));
    assert.equal(result.ok, true, result.text);
    const pgid: number = result.data.pgid;
    assert.ok(groupMembers(pgid).length > 0);
    child.kill(signal);
    assert.ok(
      await waitUntil(() => groupMembers(pgid).length === 0),
      `group ${pgid} is gone after ${signal}`,
    );
    // the process ends by itself although its stdin is still open
    const status = await child.status;
    assert.equal(status.code, 130);
    await stdin.close().catch(() => {});
    await child.stdout.cancel();
  });
}

import assert from "node:assert/strict";
import { join } from "node:path";
import { createRuntime } from "../../src/runtime/runtime.ts";
import { defaultLedgerDir, type LedgerFile, reapOrphanedTasks } from "../../src/tasks/ledger.ts";
import { processStartTime, TASK_MARKER_ENV } from "../../src/tasks/process_group.ts";
import { CONFIG, DENO, groupMembers, waitUntil } from "../_helpers/groups.ts";
import { tempWorkspace } from "../_helpers/workspace.ts";

const CHILD = new URL("../_helpers/task_child.ts", import.meta.url).pathname;

interface ChildRuntime {
  process: Deno.ChildProcess;
  pgids: number[];
  stdin: WritableStreamDefaultWriter<Uint8Array>;
}

async function startChildRuntime(root: string, outputDir: string): Promise<ChildRuntime> {
  const process = new Deno.Command(DENO, {
    args: ["run", "-A", "--config", CONFIG, CHILD, root, outputDir],
    stdin: "piped",
    stdout: "piped",
    stderr: "inherit",
  }).spawn();
  const reader = process.stdout.getReader();
  let text = "";
  while (!text.includes("\n")) {
    const { value, done } = await reader.read();
    if (done) throw new Error(`the child runtime ended early: ${text}`);
    text += new TextDecoder().decode(value);
  }
  reader.releaseLock();
  await process.stdout.cancel();
  const { pgids } = JSON.parse(text.split("\n")[0]);
  return { process, pgids, stdin: process.stdin.getWriter() };
}

function ledgerFiles(root: string): string[] {
  try {
    return [...Deno.readDirSync(defaultLedgerDir(root))].map((e) => e.name).filter((n) =>
      n.endsWith(".json")
    );
  } catch {
    return [];
  }
}

for (const signal of ["SIGTERM", "SIGINT"] as const) {
  Deno.test(`${signal} to a process holding a runtime kills every group it started`, async () => {
    await using ws = await tempWorkspace();
    const child = await startChildRuntime(ws.dir, ws.session.outputDir());
    assert.equal(child.pgids.length, 2);
    for (const pgid of child.pgids) assert.ok(groupMembers(pgid).length > 0, `group ${pgid} runs`);
    assert.equal(ledgerFiles(ws.dir).length, 1, "the ledger records the groups");
    assert.equal(Deno.readTextFileSync(join(defaultLedgerDir(ws.dir), ".gitignore")), "*\n");
    child.process.kill(signal);
    const status = await child.process.status;
    await child.stdin.close().catch(() => {});
    assert.equal(status.code, signal === "SIGTERM" ? 143 : 130);
    for (const pgid of child.pgids) assert.deepEqual(groupMembers(pgid), [], `group ${pgid} is gone`);
    assert.deepEqual(ledgerFiles(ws.dir), [], "the ledger is empty once the groups are gone");
  });
}

Deno.test("Exiting a process that holds a runtime kills every group it started", async () => {
  await using ws = await tempWorkspace();
  const child = await startChildRuntime(ws.dir, ws.session.outputDir());
  await child.stdin.write(new TextEncoder().encode("exit\n"));
  const status = await child.process.status;
  await child.stdin.close().catch(() => {});
  assert.equal(status.code, 0);
  for (const pgid of child.pgids) assert.deepEqual(groupMembers(pgid), [], `group ${pgid} is gone`);
});

Deno.test("A runtime created after a SIGKILLed one reaps the groups its ledger lists", async () => {
  await using ws = await tempWorkspace();
  const child = await startChildRuntime(ws.dir, ws.session.outputDir());
  child.process.kill("SIGKILL");
  await child.process.status;
  await child.stdin.close().catch(() => {});
  for (const pgid of child.pgids) assert.ok(groupMembers(pgid).length > 0, `group ${pgid} was orphaned`);
  assert.equal(ledgerFiles(ws.dir).length, 1);
  await using runtime = createRuntime({ roots: [ws.dir], tools: [] });
  for (const pgid of child.pgids) assert.deepEqual(groupMembers(pgid), [], `group ${pgid} was reaped`);
  assert.deepEqual(ledgerFiles(ws.dir), []);
  assert.equal(runtime.registry.names().length, 0);
});

Deno.test("Reaping leaves alone a group whose id now belongs to another process", async () => {
  await using ws = await tempWorkspace();
  const spawn = (script: string, marker: string) =>
    new Deno.Command("bash", {
      args: ["-c", script],
      detached: true,
      stdin: "null",
      stdout: "null",
      stderr: "null",
      env: { [TASK_MARKER_ENV]: marker },
    }).spawn();
  // a dead owner: a process that has exited
  const gone = new Deno.Command("true").spawn();
  await gone.status;
  const ours = spawn("sleep 100", "m-ours");
  const reused = spawn("sleep 100", "m-reused");
  const leaderless = spawn("sleep 100 & exit 0", "m-leaderless");
  const strangers = spawn("sleep 100 & exit 0", "m-strangers");
  await Promise.all([leaderless.status, strangers.status]);
  const entry = (pid: number, startTime: string, marker: string) => ({
    id: marker,
    pid,
    pgid: pid,
    startTime,
    marker,
    startedAt: Date.now(),
    command: "sleep 100",
    background: true,
  });
  const ledger: LedgerFile = {
    version: 1,
    owner: { pid: gone.pid, startTime: "1", sessionId: "dead" },
    groups: [
      entry(ours.pid, processStartTime(ours.pid)!, "m-ours"),
      entry(reused.pid, "1", "m-reused"), // recorded start time differs: the pid was reused
      entry(leaderless.pid, "0", "m-leaderless"), // leader gone, members carry the marker
      entry(strangers.pid, "0", "m-someone-else"), // leader gone, members carry another marker
    ],
  };
  const dir = join(ws.dir, "ledger");
  Deno.mkdirSync(dir);
  Deno.writeTextFileSync(join(dir, "dead.json"), JSON.stringify(ledger));
  try {
    const report = reapOrphanedTasks(dir);
    assert.deepEqual(report.reaped.map((e) => e.marker).sort(), ["m-leaderless", "m-ours"]);
    assert.deepEqual(report.skipped.map((e) => e.marker).sort(), ["m-reused", "m-someone-else"]);
    assert.deepEqual(groupMembers(ours.pid), []);
    assert.deepEqual(groupMembers(leaderless.pid), []);
    assert.ok(groupMembers(reused.pid).length > 0, "the reused id was not touched");
    assert.ok(groupMembers(strangers.pid).length > 0, "the unrelated group was not touched");
    assert.deepEqual([...Deno.readDirSync(dir)], []);
  } finally {
    for (const p of [reused.pid, strangers.pid, ours.pid, leaderless.pid]) {
      try {
        Deno.kill(-p, "SIGKILL");
      } catch {
        // already gone
      }
    }
    await Promise.all([ours.status, reused.status]);
    await waitUntil(() => groupMembers(strangers.pid).length === 0);
  }
});

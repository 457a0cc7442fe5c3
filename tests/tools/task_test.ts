import assert from "node:assert/strict";
import { runTool, type Session, ToolRegistry } from "../../mod.ts";
import { type BashBackgroundResult, createBashTool } from "../../src/tools/bash/bash.ts";
import { type TaskOutputResult, taskOutputTool } from "../../src/tools/task_output.ts";
import { type TaskStopResult, taskStopTool } from "../../src/tools/task_stop.ts";
import { TASK_OUTPUT_TAIL_CHARS } from "../../src/tasks/output_tail.ts";
import { sessionTasks, type TaskHandle, type TaskStatus } from "../../src/tasks/types.ts";
import { groupMembers } from "../_helpers/groups.ts";
import { tempWorkspace } from "../_helpers/workspace.ts";

const registry = new ToolRegistry([createBashTool({ graceMs: 500 }), taskOutputTool, taskStopTool]);

function call(session: Session, name: string, input: Record<string, unknown>) {
  return runTool(registry, { name, input }, { session });
}

async function withSession(fn: (session: Session, dir: string) => Promise<void>): Promise<void> {
  await using ws = await tempWorkspace();
  ws.session.setMode("bypassPermissions");
  try {
    await fn(ws.session, ws.dir);
  } finally {
    await ws.session.close();
  }
}

async function startBackground(session: Session, command: string): Promise<BashBackgroundResult> {
  const r = await call(session, "Bash", { command, run_in_background: true, description: "test task" });
  assert.ok(r.ok, r.text);
  return r.data as BashBackgroundResult;
}

Deno.test("A background Bash task can be started, polled, waited on with a timeout, and stopped", async () => {
  await withSession(async (session) => {
    const started = await startBackground(session, "echo ready; sleep 100");
    assert.match(started.outputPath, /task-b[0-9a-f]+\.log$/);
    assert.ok(groupMembers(started.pgid).length > 0);

    // poll until the first line is in the file
    let poll: TaskOutputResult | undefined;
    for (let i = 0; i < 200 && !poll?.output.includes("ready"); i++) {
      poll = (await call(session, "TaskOutput", { task_id: started.taskId, block: false }))
        .data as TaskOutputResult;
      if (!poll.output.includes("ready")) await new Promise((r) => setTimeout(r, 25));
    }
    assert.equal(poll?.status, "running");
    assert.equal(poll?.output, "ready\n");

    const blocked = await call(session, "TaskOutput", { task_id: started.taskId, timeout: 200 });
    assert.equal((blocked.data as TaskOutputResult).waitTimedOut, true);
    assert.match(blocked.text, /Waited 200 ms and the task is still running/);

    const stop = await call(session, "TaskStop", { task_id: started.taskId });
    assert.ok(stop.ok, stop.text);
    assert.deepEqual(stop.data as TaskStopResult, {
      task_id: started.taskId,
      kind: "bash",
      status: "killed",
      stopped: true,
    });
    assert.deepEqual(groupMembers(started.pgid), [], "the process group is gone after TaskStop");

    const after = (await call(session, "TaskOutput", { task_id: started.taskId })).data as TaskOutputResult;
    assert.equal(after.status, "killed");
  });
});

Deno.test("TaskOutput blocks until a task completes and reports its exit code", async () => {
  await withSession(async (session) => {
    const ok = await startBackground(session, "sleep 0.3; echo done");
    const r = await call(session, "TaskOutput", { task_id: ok.taskId, timeout: 20_000 });
    assert.equal((r.data as TaskOutputResult).status, "completed");
    assert.equal((r.data as TaskOutputResult).exitCode, 0);
    assert.match(r.text, /: completed, exit code 0\n/);
    assert.match(r.text, /\ndone$/);

    const bad = await startBackground(session, "echo oops >&2; exit 4");
    const rb = await call(session, "BashOutput", { task_id: bad.taskId });
    assert.equal((rb.data as TaskOutputResult).status, "failed");
    assert.equal((rb.data as TaskOutputResult).exitCode, 4);
    assert.equal((rb.data as TaskOutputResult).output, "oops\n");
  });
});

Deno.test("TaskOutput shows only the tail of a long output and says where the rest is", async () => {
  await withSession(async (session) => {
    const t = await startBackground(session, "head -c 100000 /dev/zero | tr '\\0' x; echo; echo END");
    const r = await call(session, "TaskOutput", { task_id: t.taskId, timeout: 20_000 });
    const data = r.data as TaskOutputResult;
    assert.equal(data.status, "completed");
    assert.equal(data.totalBytes, 100_005);
    assert.equal(data.output.length, TASK_OUTPUT_TAIL_CHARS);
    assert.ok(data.output.endsWith("x\nEND\n"));
    assert.match(r.text, /\[… the first 75005 bytes are not shown: read them from the file with Read …\]/);
    assert.ok(r.text.includes(`written to "${t.outputPath}"`));
  });
});

Deno.test("A background Bash task with a timeout is stopped when it runs out and TaskOutput says so", async () => {
  await withSession(async (session) => {
    const r = await call(session, "Bash", {
      command: "echo begun; sleep 100",
      run_in_background: true,
      timeout: 300,
    });
    const t = r.data as BashBackgroundResult;
    const out = await call(session, "TaskOutput", { task_id: t.taskId, timeout: 20_000 });
    assert.equal((out.data as TaskOutputResult).status, "killed");
    assert.match(
      out.text,
      /: killed(, exit code \d+)?\nIts time limit \(the Bash timeout\) ran out, so its process group was stopped\n/,
    );
    assert.match(out.text, /\nbegun$/);
    assert.deepEqual(groupMembers(t.pgid), []);
  });
});

Deno.test("TaskStop accepts shell_id and KillShell; children end with the shell, so nothing is left to stop", async () => {
  await withSession(async (session) => {
    const t = await startBackground(session, "sleep 100 > /dev/null & echo spawned");
    const r = await call(session, "TaskOutput", { task_id: t.taskId });
    assert.equal((r.data as TaskOutputResult).status, "completed");
    assert.deepEqual(groupMembers(t.pgid), [], "the background child ended with the shell");
    const stop = await call(session, "KillShell", { shell_id: t.taskId });
    assert.ok(stop.ok, stop.text);
    assert.match(stop.text, /had already finished \(completed, exit code 0\)/);
    assert.deepEqual(groupMembers(t.pgid), []);
  });
});

Deno.test("TaskOutput and TaskStop name the known tasks for an unknown id and need an id", async () => {
  await withSession(async (session) => {
    const t = await startBackground(session, "true");
    const r = await call(session, "TaskOutput", { task_id: "bnope" });
    assert.equal(r.error?.code, "not_found");
    assert.equal(r.text, `Error: No task "bnope": known tasks are "${t.taskId}"`);
    const s = await call(session, "TaskStop", {});
    assert.equal(s.error?.code, "invalid_input");
    assert.match(s.text, /Missing task_id/);
  });
});

Deno.test("TaskOutput and TaskStop serve any TaskHandle, such as a background agent", async () => {
  await withSession(async (session) => {
    let status: TaskStatus = "running";
    let finish = () => {};
    const finished = new Promise<void>((resolve) => (finish = resolve));
    const agent: TaskHandle = {
      id: "a1",
      kind: "agent",
      description: "research",
      outputPath: "/nonexistent/a1.log",
      startedAt: Date.now(),
      status: () => status,
      exitCode: () => undefined,
      done: () => finished,
      stop: () => {
        status = "killed";
        finish();
        return Promise.resolve();
      },
      result: () => status === "running" ? undefined : "partial findings",
    };
    sessionTasks(session).set(agent.id, agent);
    const poll = await call(session, "AgentOutput", { task_id: "a1", block: false });
    assert.equal((poll.data as TaskOutputResult).status, "running");
    const stop = await call(session, "TaskStop", { task_id: "a1" });
    assert.match(stop.text, /^Stopped task "a1" \(research\): the agent was stopped$/);
    const after = await call(session, "TaskOutput", { task_id: "a1" });
    assert.equal((after.data as TaskOutputResult).output, "partial findings");
  });
});

Deno.test("Closing the session kills every background task group", async () => {
  await using ws = await tempWorkspace();
  ws.session.setMode("bypassPermissions");
  const a = await startBackground(ws.session, "sleep 100");
  const b = await startBackground(ws.session, "sleep 100 & sleep 100; wait");
  await ws.session.close();
  assert.deepEqual(groupMembers(a.pgid), []);
  assert.deepEqual(groupMembers(b.pgid), []);
  assert.equal(sessionTasks(ws.session).get(a.taskId)?.status(), "killed");
});

import assert from "node:assert/strict";
import {
  groupState,
  parseProcStat,
  processStartTime,
  signalGroup,
  TASK_MARKER_ENV,
  terminateGroups,
} from "../../src/tasks/process_group.ts";
import { groupMembers } from "../_helpers/groups.ts";

Deno.test("parseProcStat reads pid, state, parent, group and start time past an odd command name", () => {
  const line = "4242 (a) b (c) S 1 4240 4240 0 -1 4194304 0 0 0 0 0 0 0 0 20 0 1 0 123456 0 0";
  assert.deepEqual(parseProcStat(line), {
    pid: 4242,
    state: "S",
    ppid: 1,
    pgid: 4240,
    sid: 4240,
    startTime: "123456",
  });
  assert.equal(parseProcStat("garbage"), undefined);
});

Deno.test("groupState tells our running group from a gone one and from a reused id", async () => {
  const child = new Deno.Command("bash", {
    args: ["-c", "sleep 100 & sleep 100"],
    detached: true,
    stdout: "null",
    stderr: "null",
    env: { [TASK_MARKER_ENV]: "t1" },
  }).spawn();
  const ref = { pgid: child.pid, startTime: processStartTime(child.pid)!, marker: "t1" };
  assert.equal(groupState(ref), "ours");
  assert.equal(groupState({ ...ref, startTime: "1" }), "foreign");
  const killed = await terminateGroups([ref], { graceMs: 1000 });
  assert.deepEqual(killed, [], "SIGTERM was enough");
  await child.status;
  assert.equal(groupState(ref), "gone");
  assert.deepEqual(groupMembers(child.pid), []);
});

Deno.test("terminateGroups escalates to SIGKILL when SIGTERM is ignored", async () => {
  const child = new Deno.Command("bash", {
    args: ["-c", "trap '' TERM; sleep 100 & echo ready; wait"],
    detached: true,
    stdout: "piped",
    stderr: "null",
    env: { [TASK_MARKER_ENV]: "t2" },
  }).spawn();
  const ref = { pgid: child.pid, startTime: processStartTime(child.pid)!, marker: "t2" };
  const reader = child.stdout.getReader();
  await reader.read(); // "ready": the trap is set
  reader.releaseLock();
  await child.stdout.cancel();
  const killed = await terminateGroups([ref], { graceMs: 200 });
  await child.status;
  assert.deepEqual(killed.map((r) => r.pgid), [child.pid]);
  assert.deepEqual(groupMembers(child.pid), []);
});

Deno.test("signalGroup refuses group ids that would hit everything", () => {
  assert.throws(() => signalGroup(0, "SIGTERM"), RangeError);
  assert.throws(() => signalGroup(1, "SIGTERM"), RangeError);
});

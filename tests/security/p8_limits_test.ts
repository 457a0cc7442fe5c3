/**
 * THREATS.md P8: every call ends, and fork bombs and memory hogs in the
 * sandbox are capped while the host stays responsive.
 */
import assert from "node:assert/strict";
import { runTool, ToolRegistry } from "../../mod.ts";
import { applyLimits } from "../../src/sandbox/limits.ts";
import { type BashResult, createBashTool } from "../../src/tools/bash/bash.ts";
import { processesWith, waitUntil } from "../_helpers/groups.ts";
import { tempWorkspace } from "../_helpers/workspace.ts";
import { HAS_BWRAP, sandboxed, tempDir } from "./_sandboxed.ts";

const SMALL = { maxProcesses: 48, maxMemoryMiB: 64 };

Deno.test({
  name: "P8 fork storm: processes are capped at maxProcesses and the command ends",
  ignore: !HAS_BWRAP,
  fn: async () => {
    await using ws = await tempDir();
    const r = await sandboxed(
      `( i=0; while [ $i -lt 1000 ]; do sleep 30 & i=$((i+1)); done ) 2>/dev/null; set -- /proc/[0-9]*; echo "procs=$#"`,
      { writable: [ws.path], settings: SMALL, shell: "/bin/sh" },
    );
    const procs = Number(/procs=(\d+)/.exec(r.out)?.[1]);
    if (r.limits === "rlimit" && Deno.uid() === 0) {
      console.warn("p8: no cgroup here, and RLIMIT_NPROC never applies to root: the storm is not capped");
      return;
    }
    assert.ok(procs <= SMALL.maxProcesses, `${procs} processes (${r.limits})`);
  },
});

Deno.test({
  name: "P8 fork storm in Bash: the call still returns by its timeout, and nothing is left",
  ignore: !HAS_BWRAP,
  fn: async () => {
    await using ws = await tempWorkspace();
    ws.session.setMode("bypassPermissions");
    const registry = new ToolRegistry([createBashTool({ sandbox: SMALL, graceMs: 300 })]);
    try {
      const started = Date.now();
      const n = 300 + Math.floor(Math.random() * 600);
      const r = await runTool(registry, {
        name: "Bash",
        input: { command: `for i in $(seq 2000); do sleep ${n}.47 & done; wait`, timeout: 2000 },
      }, { session: ws.session });
      assert.ok(Date.now() - started < 2000 + 1500, "returns by its timeout plus a second or so");
      assert.equal((r.data as BashResult).timedOut, true);
      assert.ok(
        await waitUntil(() => processesWith(`sleep ${n}.47`).length === 0, 2000),
        "no sleep survives",
      );
    } finally {
      await ws.session.close();
    }
  },
});

Deno.test({
  name: "P8 memory hog: a process past maxMemoryMiB is stopped, fast",
  ignore: !HAS_BWRAP,
  fn: async () => {
    await using ws = await tempDir();
    const r = await sandboxed(
      `awk 'BEGIN { s = "x"; while (length(s) < 1024 * 1048576) s = s s }'; echo "exit=$?"`,
      {
        writable: [ws.path],
        settings: SMALL,
      },
    );
    assert.match(r.out, /exit=[1-9]/, r.out);
    assert.ok(r.ms < 10_000, `${r.ms} ms`);
  },
});

Deno.test({
  name: "P8 memory hog in the private /tmp and /dev/shm: tmpfs is capped too",
  ignore: !HAS_BWRAP,
  fn: async () => {
    await using ws = await tempDir();
    const script =
      "head -c 200M /dev/zero > /tmp/big 2>/dev/null; echo tmp=$?; head -c 200M /dev/zero > /dev/shm/big 2>/dev/null; echo shm=$?";
    // rlimits alone: the tmpfs size cap refuses the writes
    const sized = await sandboxed(script, { writable: [ws.path], settings: { ...SMALL, limits: "rlimit" } });
    assert.match(sized.out, /tmp=[1-9]\nshm=[1-9]/);
    // with a cgroup the pages count as the command's memory: it is refused or killed
    const r = await sandboxed(script, { writable: [ws.path], settings: SMALL });
    assert.ok(r.code !== 0 || !/tmp=0|shm=0/.test(r.out), `${r.code} ${r.out}`);
  },
});

Deno.test({
  name: "P8 rlimit fallback: without a cgroup, RLIMIT_DATA still stops a memory hog",
  ignore: !HAS_BWRAP,
  fn: async () => {
    await using ws = await tempDir();
    const r = await sandboxed(
      `awk 'BEGIN { s = "x"; while (length(s) < 1024 * 1048576) s = s s }'; echo "exit=$?"`,
      {
        writable: [ws.path],
        settings: { ...SMALL, limits: "rlimit" },
      },
    );
    assert.equal(r.limits, "rlimit");
    assert.match(r.out, /exit=[1-9]/, r.out);
  },
});

Deno.test({
  name: "P8 cleanup: the command's cgroup is removed once it ends",
  ignore: Deno.build.os !== "linux",
  fn: async () => {
    const limits = applyLimits(SMALL);
    if (limits.mechanism === "rlimit") return await limits.release();
    const dirs = limits.binds.map(([procs]) => procs.replace(/\/cgroup\.procs$/, ""));
    for (const dir of dirs) assert.ok(Deno.statSync(dir).isDirectory);
    assert.match(limits.detail, /pids\.max=48/);
    await limits.release();
    for (const dir of dirs) assert.throws(() => Deno.statSync(dir), Deno.errors.NotFound);
  },
});

Deno.test("P8 limits must be positive integers", () => {
  assert.throws(() => applyLimits({ maxProcesses: 0 }), /"maxProcesses": expected a positive integer, got 0/);
  assert.throws(() => applyLimits({ maxMemoryMiB: 1.5 }), /"maxMemoryMiB"/);
});

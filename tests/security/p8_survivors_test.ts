/**
 * THREATS.md P8: children never outlive their call's timeout, its return,
 * TaskStop or the runtime — also when they try to escape: a new session
 * (`setsid`, `setsid -f`), ignoring hang-ups (`nohup`), a double fork that
 * reparents them to init, a daemon that disowns itself, and a new process
 * group that ignores SIGTERM. Each escape shape runs in every containment this
 * machine has (`src/tasks/containment.ts`) and in the sandbox, and a crash of
 * the runtime (SIGKILL) is repaired by the next runtime's reap (in the
 * sandbox, bubblewrap's `--die-with-parent` already ends them).
 *
 * Every process of a test carries a unique `sleep 30.<digits>` argument, so a
 * scan of `/proc/<pid>/cmdline` finds the survivors. The waits are bounded
 * polls, never timing assertions.
 */
import assert from "node:assert/strict";
import { runTool, ToolRegistry } from "../../mod.ts";
import { createRuntime } from "../../src/runtime/runtime.ts";
import { containCommand, type ContainmentChoice } from "../../src/tasks/containment.ts";
import { type BashBackgroundResult, type BashResult, createBashTool } from "../../src/tools/bash/bash.ts";
import { taskStopTool } from "../../src/tools/task_stop.ts";
import { CONFIG, DENO, waitUntil } from "../_helpers/groups.ts";
import { tempWorkspace } from "../_helpers/workspace.ts";
import { HAS_BWRAP } from "./_sandboxed.ts";

const CHILD = new URL("./_survivor_child.ts", import.meta.url).pathname;
/** How long a poll for the escapees to start, or to be gone, may take (ms): a bound, not an expectation. */
const DEADLINE_MS = 15_000;

/** The escape shapes: each starts one `sleep <marker>` that tries to outlive the command. */
const SHAPES: Record<string, (m: string) => string> = {
  "setsid (new session)": (m) => `setsid sleep ${m} &`,
  "nohup (ignores SIGHUP)": (m) => `nohup sleep ${m} >/dev/null 2>&1 &`,
  "double fork (reparented to init)": (m) => `( sleep ${m} & ) &`,
  "setsid -f (forks into a new session)": (m) => `setsid -f sleep ${m} >/dev/null 2>&1`,
  "daemon (nohup sh -c, disown)": (m) => `nohup sh -c 'sleep ${m}' >/dev/null 2>&1 & disown`,
  "new process group ignoring SIGTERM (set -m, trap '' TERM)": (m) =>
    `set -m; ( trap '' TERM HUP; exec sleep ${m} ) & set +m`,
};

interface Escapees {
  /** The command that starts every shape. */
  script: string;
  /** Shape name → its marker. */
  markers: Record<string, string>;
  /** What every marker starts with. */
  prefix: string;
}

function escapees(): Escapees {
  const base = crypto.getRandomValues(new Uint32Array(1))[0];
  const markers: Record<string, string> = {};
  const lines: string[] = [];
  Object.entries(SHAPES).forEach(([name, shape], i) => {
    markers[name] = `30.${base}${i}`;
    lines.push(shape(markers[name]));
  });
  return { script: lines.join("\n"), markers, prefix: `30.${base}` };
}

/** The live `sleep` processes of `e` (zombies, and shells that merely name a marker, do not count): marker → pids. */
function sleepers(e: Escapees): Map<string, number[]> {
  const markers = new Set(Object.values(e.markers));
  const found = new Map<string, number[]>();
  for (const entry of Deno.readDirSync("/proc")) {
    if (!/^\d+$/.test(entry.name)) continue;
    try {
      const stat = Deno.readTextFileSync(`/proc/${entry.name}/stat`);
      if (/\) [ZX] /.test(stat)) continue;
      const argv = Deno.readTextFileSync(`/proc/${entry.name}/cmdline`).split("\0");
      if (argv[0].endsWith("sleep") && markers.has(argv[1])) {
        found.set(argv[1], [...found.get(argv[1]) ?? [], Number(entry.name)]);
      }
    } catch {
      // ended meanwhile
    }
  }
  return found;
}

/** The shapes whose `sleep` still runs. */
function alive(e: Escapees): string[] {
  const found = sleepers(e);
  return Object.entries(e.markers).filter(([, m]) => found.has(m)).map(([name]) => name);
}

async function assertAllStarted(e: Escapees): Promise<void> {
  const all = Object.keys(e.markers).length;
  assert.ok(await waitUntil(() => alive(e).length === all, DEADLINE_MS), `not all started: ${alive(e)}`);
}

async function assertNoSurvivor(e: Escapees, when: string): Promise<void> {
  const gone = await waitUntil(() => alive(e).length === 0, DEADLINE_MS);
  assert.ok(gone, `${when}, these escapes survived: ${alive(e).join("; ")}`);
}

/** Kills (by pid) what a failed test left, so one failure does not leak into the next tests. */
function cleanUp(e: Escapees): void {
  for (const pids of sleepers(e).values()) {
    for (const pid of pids) {
      try {
        Deno.kill(pid, "SIGKILL");
      } catch {
        // gone meanwhile
      }
    }
  }
}

interface Mode {
  name: string;
  containment: ContainmentChoice;
  sandbox: boolean;
  ignore: boolean;
}

function containmentWorks(c: ContainmentChoice): boolean {
  try {
    const made = containCommand(c);
    void made.release();
    return made.kind === c || c === "auto";
  } catch {
    return false;
  }
}

const MODES: Mode[] = [
  {
    name: "unsandboxed, PID namespace",
    containment: "pid-namespace",
    sandbox: false,
    ignore: Deno.build.os !== "linux" || !containmentWorks("pid-namespace"),
  },
  {
    name: "unsandboxed, cgroup",
    containment: "cgroup",
    sandbox: false,
    ignore: Deno.build.os !== "linux" || !containmentWorks("cgroup"),
  },
  {
    name: "unsandboxed, process group",
    containment: "process-group",
    sandbox: false,
    ignore: Deno.build.os !== "linux",
  },
  { name: "sandboxed", containment: "auto", sandbox: true, ignore: !HAS_BWRAP },
];

function tools(mode: Mode) {
  return [
    createBashTool({ graceMs: 300, containment: mode.containment, sandbox: mode.sandbox }),
    taskStopTool,
  ];
}

for (const mode of MODES) {
  Deno.test({
    name: `P8 escapes (${mode.name}): nothing outlives the call's timeout`,
    ignore: mode.ignore,
    fn: async () => {
      await using ws = await tempWorkspace();
      ws.session.setMode("bypassPermissions");
      const e = escapees();
      try {
        const registry = new ToolRegistry(tools(mode));
        const call = runTool(registry, {
          name: "Bash",
          input: { command: `${e.script}\nsleep 30`, timeout: 4_000 },
        }, { session: ws.session, env: { HOME: "/tmp" } });
        await assertAllStarted(e);
        const r = await call;
        assert.equal((r.data as BashResult).timedOut, true, r.text);
        await assertNoSurvivor(e, "after the timeout");
      } finally {
        cleanUp(e);
        await ws.session.close();
      }
    },
  });

  Deno.test({
    name: `P8 escapes (${mode.name}): nothing outlives the command's return`,
    ignore: mode.ignore,
    fn: async () => {
      await using ws = await tempWorkspace();
      ws.session.setMode("bypassPermissions");
      const e = escapees();
      try {
        const registry = new ToolRegistry(tools(mode));
        // the shell waits until every escape runs, then returns: what they do after is the test
        const count = `pgrep -fc 'sleep ${e.prefix.replace(".", "\\.")}'`;
        const wait = `for i in $(seq 200); do [ "$(${count})" -ge 6 ] && break; sleep 0.05; done`;
        const r = await runTool(registry, {
          name: "Bash",
          input: { command: `${e.script}\n${wait}\necho "started=$(${count})"` },
        }, { session: ws.session, env: { HOME: "/tmp" } });
        // pgrep also counts the shells whose command line names the markers: at least the six
        assert.ok(r.ok && Number(/started=(\d+)/.exec(r.text)?.[1]) >= 6, r.text);
        await assertNoSurvivor(e, "after the command returned");
      } finally {
        cleanUp(e);
        await ws.session.close();
      }
    },
  });

  Deno.test({
    name: `P8 escapes (${mode.name}): nothing outlives TaskStop`,
    ignore: mode.ignore,
    fn: async () => {
      await using ws = await tempWorkspace();
      ws.session.setMode("bypassPermissions");
      const e = escapees();
      try {
        const registry = new ToolRegistry(tools(mode));
        const options = { session: ws.session, env: { HOME: "/tmp" } };
        const started = await runTool(registry, {
          name: "Bash",
          input: { command: `${e.script}\nsleep 30`, run_in_background: true },
        }, options);
        assert.ok(started.ok, started.text);
        await assertAllStarted(e);
        const { taskId } = started.data as BashBackgroundResult;
        const stop = await runTool(registry, { name: "TaskStop", input: { task_id: taskId } }, options);
        assert.ok(stop.ok, stop.text);
        await assertNoSurvivor(e, "after TaskStop");
      } finally {
        cleanUp(e);
        await ws.session.close();
      }
    },
  });

  Deno.test({
    name: `P8 escapes (${mode.name}): nothing outlives the runtime's close`,
    ignore: mode.ignore,
    fn: async () => {
      await using ws = await tempWorkspace();
      const e = escapees();
      try {
        const rt = createRuntime({
          roots: [ws.dir],
          outputDir: ws.session.outputDir(),
          mode: "bypassPermissions",
          tools: tools(mode),
        });
        const started = await rt.run("Bash", { command: `${e.script}\nsleep 30`, run_in_background: true });
        assert.ok(started.ok, started.text);
        await assertAllStarted(e);
        await rt.close();
        await assertNoSurvivor(e, "after the runtime closed");
      } finally {
        cleanUp(e);
      }
    },
  });

  Deno.test({
    name: `P8 escapes (${mode.name}): after a crash (SIGKILL), the next runtime reaps them`,
    ignore: mode.ignore,
    fn: async () => {
      await using ws = await tempWorkspace();
      const e = escapees();
      try {
        const child = new Deno.Command(DENO, {
          args: [
            "run",
            "-A",
            "--config",
            CONFIG,
            CHILD,
            ws.dir,
            ws.session.outputDir(),
            mode.containment,
            mode.sandbox ? "1" : "0",
            `${e.script}\nsleep 30`,
          ],
          stdout: "piped",
          stderr: "inherit",
        }).spawn();
        const reader = child.stdout.getReader();
        const first = await reader.read();
        reader.releaseLock();
        await child.stdout.cancel();
        const started = JSON.parse(new TextDecoder().decode(first.value));
        assert.ok(started.ok, started.text);
        await assertAllStarted(e);
        child.kill("SIGKILL");
        await child.status;
        if (mode.sandbox) {
          // bubblewrap runs with --die-with-parent: the crash itself ends the sandbox
          await assertNoSurvivor(e, "after the crash");
          return;
        }
        assert.equal(alive(e).length, 6, "the crash left them running: the reap has work to do");
        await using rt = createRuntime({ roots: [ws.dir], outputDir: ws.session.outputDir(), tools: [] });
        await assertNoSurvivor(e, "after the next runtime started");
        assert.equal(rt.registry.names().length, 0);
      } finally {
        cleanUp(e);
      }
    },
  });
}

for (const mode of MODES.filter((m) => m.containment !== "cgroup" && m.containment !== "process-group")) {
  Deno.test({
    name: `P8 stop during start-up (${mode.name}): a runtime closed right after a start leaves nothing`,
    ignore: mode.ignore,
    fn: async () => {
      // the namespace's first process may not yet have armed its parent-death signal when its leader dies
      for (let i = 0; i < 4; i++) {
        await using ws = await tempWorkspace();
        const e = escapees();
        try {
          const rt = createRuntime({
            roots: [ws.dir],
            outputDir: ws.session.outputDir(),
            mode: "bypassPermissions",
            tools: tools(mode),
          });
          const started = await rt.run("Bash", { command: `${e.script}\nsleep 30`, run_in_background: true });
          assert.ok(started.ok, started.text);
          await rt.close();
          // what an orphaned namespace would run appears only later: watch for a while
          const appeared = await waitUntil(() => alive(e).length > 0, 1_000);
          assert.ok(!appeared, `after close ${i}, these escapes run: ${alive(e).join("; ")}`);
        } finally {
          cleanUp(e);
        }
      }
    },
  });
}

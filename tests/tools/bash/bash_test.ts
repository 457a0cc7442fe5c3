import assert from "node:assert/strict";
import { type RunOptions, runTool, type Session, ToolRegistry } from "../../../mod.ts";
import { resolveConfig } from "../../../src/cli/options.ts";
import { createRuntime } from "../../../src/runtime/runtime.ts";
import type { ToolEvent } from "../../../src/tool/hooks.ts";
import { type BashResult, createBashTool } from "../../../src/tools/bash/bash.ts";
import { containCommand, containmentPrograms } from "../../../src/tasks/containment.ts";
import { MAX_FILE_BYTES } from "../../../src/tasks/output_sink.ts";
import { CONFIG, DENO, groupMembers, processesWith, waitUntil } from "../../_helpers/groups.ts";
import { tempWorkspace } from "../../_helpers/workspace.ts";

// these tests are about groups, timeouts and output: unsandboxed, so they hold where bubblewrap cannot run
const registry = new ToolRegistry([createBashTool({ graceMs: 500, sandbox: false })]);
const helper = (name: string) => new URL(`../../_helpers/${name}`, import.meta.url).pathname;

/** A `sleep` argument no other process has: its command line marks the processes of one test. */
function uniqueSleep(): string {
  return `30.${crypto.getRandomValues(new Uint32Array(1))[0]}`;
}

/** Whether this machine can contain a command that way. */
function available(containment: "auto" | "cgroup" | "process-group"): boolean {
  if (containment === "auto" || containment === "process-group") return true;
  try {
    const c = containCommand(containment);
    void c.release();
    return true;
  } catch {
    return false;
  }
}

async function bash(
  session: Session,
  input: Record<string, unknown>,
  extra: {
    onEvent?: (e: ToolEvent) => void;
    signal?: AbortSignal;
    registry?: ToolRegistry;
    approver?: RunOptions["approver"];
  } = {},
) {
  const { registry: tools = registry, ...rest } = extra;
  const r = await runTool(tools, { name: "Bash", input }, { session, env: { HOME: "/tmp" }, ...rest });
  return { ...r, data: r.data as BashResult };
}

async function withSession<T>(fn: (ws: Awaited<ReturnType<typeof tempWorkspace>>) => Promise<T>): Promise<T> {
  await using ws = await tempWorkspace();
  ws.session.setMode("bypassPermissions");
  try {
    return await fn(ws);
  } finally {
    await ws.session.close();
  }
}

Deno.test("Bash timeout stops the whole group: `sleep 100 & sleep 100` returns at once and no sleep survives", async () => {
  await withSession(async (ws) => {
    const started = Date.now();
    const r = await bash(ws.session, { command: "sleep 100 & sleep 100", timeout: 500 });
    // a bound on waiting, far below the 100 s the sleeps would take: proves the call did not wait for them
    assert.ok(Date.now() - started < 5_000, `took ${Date.now() - started} ms`);
    assert.ok(r.ok);
    assert.equal(r.data.timedOut, true);
    assert.match(r.text, /^Timed out after 500 ms: the process group was stopped/);
    assert.deepEqual(groupMembers(r.data.pgid), []);
  });
});

for (const containment of ["auto", "cgroup", "process-group"] as const) {
  Deno.test({
    name: `Bash (${containment}) stops what a command leaves running when it returns, pipe holders included`,
    ignore: !available(containment),
    fn: async () => {
      await using ws = await tempWorkspace();
      ws.session.setMode("bypassPermissions");
      const tool = new ToolRegistry([createBashTool({ graceMs: 500, containment, sandbox: false })]);
      const marker = uniqueSleep();
      const r = await runTool(tool, {
        name: "Bash",
        input: { command: `sleep ${marker} & (sleep 1; echo late-line) & echo started` },
      }, { session: ws.session, env: { HOME: "/tmp" } });
      assert.ok(r.ok, r.text);
      assert.match(r.text, /^started/);
      assert.doesNotMatch(r.text, /late-line/);
      const data = r.data as BashResult;
      assert.equal(data.exitCode, 0);
      assert.deepEqual(processesWith("sleep " + marker), [], "nothing it started outlives the call");
      if (containment !== "auto") {
        assert.equal(data.backgroundProcesses, true);
        assert.match(r.text, /were stopped when it returned: use run_in_background/);
      }
      await ws.session.close();
    },
  });
}

Deno.test("Bash keeps memory bounded on 200 MB of output and keeps the full output in a file", async () => {
  await using ws = await tempWorkspace();
  // a 96 MB heap cannot hold 200 MB of output: the child dies if the output is kept in memory
  const out = await new Deno.Command(DENO, {
    args: [
      "run",
      "-A",
      "--config",
      CONFIG,
      "--v8-flags=--max-old-space-size=96",
      helper("bash_child.ts"),
      ws.dir,
      ws.session.outputDir(),
      "yes | head -c 200000000",
    ],
    stdout: "piped",
    stderr: "piped",
  }).output();
  assert.equal(out.code, 0, new TextDecoder().decode(out.stderr));
  const r = JSON.parse(new TextDecoder().decode(out.stdout));
  assert.equal(r.ok, true);
  assert.equal(r.data.outputChars, 200_000_000);
  assert.equal(r.streamed, 200_000_000, "every chunk was streamed to onOutput");
  assert.ok(r.text.length <= 30_000);
  assert.match(
    r.text,
    new RegExp(`characters cut here; ".+" holds the output up to its ${MAX_FILE_BYTES}-byte limit`),
  );
  const file = await Deno.readTextFile(r.data.outputPath);
  assert.ok(file.length < MAX_FILE_BYTES + 200, "the file stops at its limit");
  assert.match(file.slice(-200), /output file limit of \d+ bytes reached: the rest of the output was cut/);
});

Deno.test("Bash output past 30000 characters is cut by the runner, head and tail kept, full text in a file", async () => {
  await withSession(async (ws) => {
    const r = await bash(ws.session, { command: "seq 1 30000" });
    assert.ok(r.ok);
    assert.ok(r.truncated, "the runner cut it");
    assert.ok(r.text.startsWith("1\n2\n3\n"));
    assert.ok(r.text.endsWith("29999\n30000"));
    assert.match(r.text, /characters cut here; the full output is in "/);
    const full = await Deno.readTextFile(r.truncated!.fullOutputPath);
    assert.equal(full.split("\n").length, 30_000);
  });
});

Deno.test("Bash streams output chunk by chunk before the command exits", async () => {
  await withSession(async (ws) => {
    // each line waits for the test to acknowledge the previous one: only streaming lets it finish
    const command =
      "for i in 1 2 3; do echo tick $i; while [ ! -e ack$i ]; do sleep 0.05; done; done; echo end";
    const seen: string[] = [];
    const r = await bash(ws.session, { command, timeout: 30_000 }, {
      onEvent: (e) => {
        if (e.type !== "tool_output") return;
        seen.push(e.chunk);
        const m = e.chunk.match(/tick (\d)/g);
        for (const t of m ?? []) Deno.writeTextFileSync(ws.path(`ack${t.slice(5)}`), "");
      },
    });
    assert.equal(r.data.timedOut, false);
    assert.equal(r.text, "tick 1\ntick 2\ntick 3\nend");
    assert.ok(seen.length >= 3, `chunks: ${JSON.stringify(seen)}`);
  });
});

Deno.test("Bash interleaves stdout and stderr and states a non-zero exit first", async () => {
  await withSession(async (ws) => {
    const r = await bash(ws.session, { command: "echo out; echo err >&2; echo out2; echo err2 >&2; exit 3" });
    assert.ok(r.ok);
    assert.equal(r.text, "Exit code 3\nout\nerr\nout2\nerr2");
    assert.equal(r.data.exitCode, 3);
  });
});

Deno.test("Bash keeps the working directory between calls and resets it when it leaves the workspace", async () => {
  await withSession(async (ws) => {
    await bash(ws.session, { command: "mkdir -p sub/deeper && cd sub/deeper" });
    assert.equal(ws.session.cwd, ws.path("sub", "deeper"));
    const pwd = await bash(ws.session, { command: "pwd" });
    assert.equal(pwd.text, ws.path("sub", "deeper"));
    const out = await bash(ws.session, { command: "cd /" });
    assert.match(out.text, /"\/" is outside the workspace, so the working directory was reset to "/);
    assert.equal(ws.session.cwd, ws.dir);
    const again = await bash(ws.session, { command: "pwd" });
    assert.equal(again.text, ws.dir);
  });
});

Deno.test("Bash refuses a timeout above 600000 ms with a clear message", async () => {
  await withSession(async (ws) => {
    const r = await bash(ws.session, { command: "true", timeout: 600_001 });
    assert.equal(r.ok, false);
    assert.equal(r.error?.code, "invalid_input");
    assert.match(r.text, /timeout is at most 600000 ms/);
  });
});

Deno.test("Bash abort kills the group and the runner returns the partial output", async () => {
  await withSession(async (ws) => {
    const controller = new AbortController();
    const marker = uniqueSleep();
    const r = await bash(ws.session, { command: `echo first; sleep ${marker} & sleep ${marker}` }, {
      signal: controller.signal,
      onEvent: (e) => {
        if (e.type === "tool_output" && e.chunk.includes("first")) controller.abort();
      },
    });
    assert.equal(r.ok, false);
    assert.equal(r.error?.code, "aborted");
    assert.match(r.text, /first/);
    assert.ok(await waitUntil(() => processesWith(`sleep ${marker}`).length === 0), "all it started dies");
  });
});

Deno.test("Bash kills the group through bash when Deno only has --allow-run=bash", async () => {
  await using ws = await tempWorkspace();
  const out = ws.session.outputDir();
  const repo = new URL("../../../", import.meta.url).pathname;
  const out2 = await new Deno.Command(DENO, {
    args: [
      "run",
      "--no-prompt",
      "--config",
      CONFIG,
      "--allow-run=bash",
      `--allow-read=${repo},${ws.dir},${out}`,
      `--allow-write=${ws.dir},${out}`,
      helper("bash_child.ts"),
      ws.dir,
      out,
      "sleep 100 & sleep 100",
      "500",
    ],
    stdout: "piped",
    stderr: "piped",
  }).output();
  assert.equal(out2.code, 0, new TextDecoder().decode(out2.stderr));
  const r = JSON.parse(new TextDecoder().decode(out2.stdout));
  assert.equal(r.data.timedOut, true, r.text);
  assert.deepEqual(groupMembers(r.data.pgid), []);
});

Deno.test("The sandbox is on by default; only the user turns it off (--no-sandbox, user settings), never a project", async () => {
  await using ws = await tempWorkspace();
  await using boxed = createRuntime({ roots: [ws.dir] });
  assert.deepEqual(boxed.registry.get("Bash")?.programs, ["bash", "bwrap"]);
  assert.equal(boxed.policy().sandbox, true);
  await using plain = createRuntime({ roots: [ws.dir], sandbox: false });
  assert.deepEqual(plain.registry.get("Bash")?.programs, ["bash", ...containmentPrograms()]);
  assert.equal(plain.policy().sandbox, false);
  const home = await Deno.makeTempDir();
  try {
    const io = {
      out: () => {},
      err: () => {},
      stdin: new ReadableStream<Uint8Array>(),
      isTerminal: false,
      env: { HOME: home },
      cwd: ws.dir,
      signal: new AbortController().signal,
    };
    const sandboxOf = (flags: Parameters<typeof resolveConfig>[0]) =>
      resolveConfig(flags, io).runtime.toolOptions?.bash?.sandbox;
    // a project's settings cannot turn it off
    await ws.write(".paddock/settings.json", JSON.stringify({ sandbox: false }));
    assert.equal(sandboxOf({}), true);
    assert.equal(sandboxOf({ "no-sandbox": true }), false);
    // the user's own settings can, and --sandbox overrides them
    await Deno.mkdir(`${home}/.config/paddock`, { recursive: true });
    await Deno.writeTextFile(`${home}/.config/paddock/settings.json`, JSON.stringify({ sandbox: false }));
    assert.equal(sandboxOf({}), false);
    assert.equal(sandboxOf({ sandbox: true }), true);
    assert.throws(() => resolveConfig({ sandbox: true, "no-sandbox": true }, io), /contradict/);
  } finally {
    await Deno.remove(home, { recursive: true });
  }
});

Deno.test({
  name:
    "Bash runs in the sandbox by default: the workspace is writable, outside it and protected paths are not",
  ignore: Deno.build.os !== "linux" || !hasBwrap(),
  fn: async () => {
    await withSession(async (ws) => {
      const r = await bash(ws.session, {
        command: "echo in > ok.txt; echo x > /etc/paddock-escape 2>/dev/null || echo refused; " +
          "mkdir -p .git/hooks 2>/dev/null && cp ok.txt .git/hooks/pre-commit 2>/dev/null || echo hook-refused; cat ok.txt",
      }, { registry: new ToolRegistry([createBashTool({ ledgerDir: false })]) });
      assert.ok(r.ok, r.text);
      assert.equal(r.data.sandboxed, true);
      assert.match(r.text, /refused\nhook-refused\nin/);
      assert.equal(await Deno.readTextFile(ws.path("ok.txt")), "in\n");
    });
  },
});

Deno.test("dangerouslyDisableSandbox is refused unless the user allows unsandboxed commands", async () => {
  await withSession(async (ws) => {
    const r = await bash(ws.session, { command: "echo hi", dangerouslyDisableSandbox: true }, {
      registry: new ToolRegistry([createBashTool({ ledgerDir: false })]),
    });
    assert.equal(r.error?.code, "invalid_input");
    assert.match(r.text, /dangerouslyDisableSandbox is refused: .*--allow-unsandboxed-commands/);
  });
});

Deno.test("dangerouslyDisableSandbox, when allowed, always asks, even in bypassPermissions, and runs unsandboxed", async () => {
  await withSession(async (ws) => {
    const registry = new ToolRegistry([createBashTool({ ledgerDir: false, allowUnsandboxedCommands: true })]);
    const input = { command: "echo outside", dangerouslyDisableSandbox: true };
    const alone = await bash(ws.session, input, { registry });
    assert.equal(alone.error?.code, "permission_denied", "bypassPermissions does not approve it");
    assert.match(alone.text, /outside the OS sandbox.*no approver is set/s);
    ws.session.setMode("dontAsk");
    assert.equal(
      (await bash(ws.session, input, { registry, approver: () => Promise.resolve(true) })).ok,
      false,
    );
    ws.session.setMode("bypassPermissions");
    const asked: string[] = [];
    const yes = await bash(ws.session, input, {
      registry,
      approver: (q) => (asked.push(q.reason ?? ""), Promise.resolve(true)),
    });
    assert.ok(yes.ok, yes.text);
    assert.equal(yes.data.sandboxed, false);
    assert.equal(asked.length, 1);
    // without the field the same tool stays sandboxed where it can
    if (hasBwrap()) {
      const boxed = await bash(ws.session, { command: "echo inside" }, { registry });
      assert.equal(boxed.data.sandboxed, true, boxed.text);
    }
  });
});

function hasBwrap(): boolean {
  return new Deno.Command("bash", { args: ["-c", "command -v bwrap"], stdout: "null", stderr: "null" })
    .outputSync().success;
}

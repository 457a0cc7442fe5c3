import assert from "node:assert/strict";
import { runTool, type Session, ToolRegistry } from "../../mod.ts";
import { bubblewrapArgs } from "../../src/sandbox/bubblewrap.ts";
import { sandboxSelfTest } from "../../src/sandbox/sandbox.ts";
import { seatbeltProfile } from "../../src/sandbox/seatbelt.ts";
import { type BashOptions, type BashResult, createBashTool } from "../../src/tools/bash/bash.ts";
import { taskStopTool } from "../../src/tools/task_stop.ts";
import { groupMembers, processesWith, waitUntil } from "../_helpers/groups.ts";
import { tempWorkspace } from "../_helpers/workspace.ts";

const HAS_BWRAP = Deno.build.os === "linux" &&
  new Deno.Command("bash", { args: ["-c", "command -v bwrap"], stdout: "null", stderr: "null" }).outputSync()
    .success;
if (!HAS_BWRAP && Deno.build.os === "linux") {
  console.warn("sandbox_test: bubblewrap (bwrap) is not installed, so the Linux sandbox tests are skipped");
}

async function inSandbox(
  fn: (
    run: (command: string, extra?: Record<string, unknown>) => Promise<BashOut>,
    session: Session,
  ) => Promise<void>,
  options: BashOptions = { sandbox: true },
): Promise<void> {
  await using ws = await tempWorkspace();
  ws.session.setMode("bypassPermissions");
  const registry = new ToolRegistry([createBashTool({ graceMs: 500, ...options }), taskStopTool]);
  const run = async (command: string, extra: Record<string, unknown> = {}) => {
    const r = await runTool(registry, { name: "Bash", input: { command, ...extra } }, {
      session: ws.session,
      // these tests are about the OS sandbox: a person approves what the permission check asks about
      approver: () => Promise.resolve(true),
    });
    return { ok: r.ok, text: r.text, data: r.data as BashResult & { taskId?: string; pgid: number } };
  };
  try {
    await fn(run, ws.session);
  } finally {
    await ws.session.close();
  }
}

interface BashOut {
  ok: boolean;
  text: string;
  data: BashResult & { taskId?: string; pgid: number };
}

Deno.test({
  name: "Sandboxed Bash writes the workspace but nothing outside it, and has a private /tmp",
  ignore: !HAS_BWRAP,
  fn: () =>
    inSandbox(async (run, session) => {
      const marker = `paddock-sandbox-${crypto.randomUUID()}`;
      const r = await run(
        `echo inside > in.txt && cat in.txt; echo x > /etc/${marker} 2>&1; echo x > /tmp/${marker}; ls /tmp/${marker}`,
      );
      assert.equal(r.data.sandboxed, true);
      assert.match(r.text, /^inside\n.*Read-only file system\n/s);
      assert.equal(Deno.readTextFileSync(`${session.roots[0]}/in.txt`), "inside\n");
      assert.throws(() => Deno.statSync(`/etc/${marker}`), Deno.errors.NotFound);
      assert.throws(() => Deno.statSync(`/tmp/${marker}`), Deno.errors.NotFound, "/tmp is private");
      await run("mkdir -p sub && cd sub");
      assert.equal(session.cwd, `${session.roots[0]}/sub`, "the working directory persists from the sandbox");
    }),
});

Deno.test({
  name: "Sandboxed Bash has no network unless allowed",
  ignore: !HAS_BWRAP,
  fn: async () => {
    const controller = new AbortController();
    const server = Deno.serve({
      hostname: "127.0.0.1",
      port: 0,
      signal: controller.signal,
      onListen: () => {},
    }, () => new Response("reachable"));
    const probe =
      `exec 3<>/dev/tcp/127.0.0.1/${server.addr.port} && printf 'GET / HTTP/1.0\\r\\n\\r\\n' >&3 && cat <&3`;
    try {
      await inSandbox(async (run) => {
        const r = await run(probe);
        assert.doesNotMatch(r.text, /reachable/);
        assert.match(r.text, /^Exit code 1\n.*(refused|unreachable)/s);
      });
      await inSandbox(async (run) => {
        const r = await run(probe);
        assert.match(r.text, /reachable$/);
      }, { sandbox: { allowNetwork: true } });
    } finally {
      controller.abort();
      await server.finished;
    }
  },
});

Deno.test({
  name: "A setsid escapee inside the sandbox dies when the command is stopped",
  ignore: !HAS_BWRAP,
  fn: () =>
    inSandbox(async (run) => {
      const n = 4000 + Math.floor(Math.random() * 1000);
      const r = await run(`setsid sleep ${n}.17 & sleep ${n}.18`, { timeout: 500 });
      assert.equal(r.data.timedOut, true);
      assert.ok(await waitUntil(() => processesWith(`sleep ${n}.1`).length === 0), "no sleep survives");
      assert.deepEqual(groupMembers(r.data.pgid), []);
    }),
});

Deno.test({
  name: "TaskStop of a sandboxed background task also ends its setsid escapees",
  ignore: !HAS_BWRAP,
  fn: async () => {
    await using ws = await tempWorkspace();
    ws.session.setMode("bypassPermissions");
    const registry = new ToolRegistry([createBashTool({ sandbox: true, graceMs: 500 }), taskStopTool]);
    const n = 5000 + Math.floor(Math.random() * 1000);
    try {
      const bg = await runTool(registry, {
        name: "Bash",
        input: { command: `setsid sleep ${n}.37 & sleep ${n}.38`, run_in_background: true },
      }, { session: ws.session });
      const taskId = (bg.data as { taskId: string }).taskId;
      assert.ok(await waitUntil(() => processesWith(`sleep ${n}.37`).length === 1), "the escapee started");
      const stop = await runTool(registry, { name: "TaskStop", input: { task_id: taskId } }, {
        session: ws.session,
      });
      assert.ok(stop.ok, stop.text);
      assert.ok(await waitUntil(() => processesWith(`sleep ${n}.3`).length === 0), "no sleep survives");
    } finally {
      await ws.session.close();
    }
  },
});

Deno.test("Bash fails closed with a reason and a fix when the sandbox cannot start", async () => {
  await inSandbox(async (run, session) => {
    const r = await run("touch ran");
    assert.equal(r.ok, false);
    assert.match(
      r.text,
      /^Error: Cannot start the Bash sandbox: "\/nonexistent\/bwrap" was not found: install bubblewrap .*, or turn the sandbox off/,
    );
    assert.throws(
      () => Deno.statSync(`${session.roots[0]}/ran`),
      Deno.errors.NotFound,
      "nothing ran unsandboxed",
    );
  }, { sandbox: { program: "/nonexistent/bwrap" } });
});

Deno.test({
  name: "A sandbox program that fails its self-test makes Bash fail closed with its stderr and the fix",
  ignore: Deno.build.os !== "linux",
  fn: async () => {
    await using ws = await tempWorkspace();
    // stands for a bwrap that cannot create user namespaces on this host
    const fake = ws.path("bwrap");
    Deno.writeTextFileSync(
      fake,
      "#!/bin/sh\necho 'bwrap: setting up uid map: Permission denied' >&2\nexit 1\n",
    );
    Deno.chmodSync(fake, 0o755);
    await inSandbox(async (run, session) => {
      const r = await run("touch ran");
      assert.equal(r.ok, false);
      assert.match(
        r.text,
        /^Error: Cannot start the Bash sandbox: ".*\/bwrap" failed its self-test \(exit 1\): "bwrap: setting up uid map: Permission denied": allow unprivileged user namespaces .*turn the sandbox off/,
      );
      assert.throws(() => Deno.statSync(`${session.roots[0]}/ran`), Deno.errors.NotFound, "nothing ran");
    }, { sandbox: { program: fake } });
  },
});

Deno.test({
  name: "The sandbox self-test passes where bubblewrap works",
  ignore: !HAS_BWRAP,
  fn: () => sandboxSelfTest({}),
});

Deno.test("bubblewrap arguments: user namespace without capabilities, read-only root, private /tmp and /run, writable roots, network only when allowed", () => {
  const closed = bubblewrapArgs({ writable: ["/w"], writableFiles: ["/o/cwd"], cwd: "/w/sub" });
  const text = closed.join(" ");
  assert.match(
    text,
    /^--unshare-user --disable-userns --unshare-pid --unshare-ipc --unshare-uts --unshare-cgroup-try --unshare-net --die-with-parent --new-session --cap-drop ALL /,
  );
  assert.match(
    text,
    / --ro-bind \/ \/ --dev \/dev --proc \/proc --tmpfs \/tmp --tmpfs \/var\/tmp --tmpfs \/dev\/shm --tmpfs \/run /,
  );
  assert.match(text, / --bind \/w \/w --bind \/o\/cwd \/o\/cwd --chdir \/w\/sub --$/);
  const open = bubblewrapArgs({
    writable: ["/w"],
    cwd: "/w",
    allowNetwork: true,
    runPaths: ["/run/systemd/resolve/stub-resolv.conf"],
  });
  assert.ok(!open.includes("--unshare-net"));
  assert.match(
    open.join(" "),
    / --tmpfs \/run --ro-bind-try \/run\/current-system \/run\/current-system --ro-bind-try (\/run\/systemd\/resolve\/stub-resolv.conf ){2}/,
    "host sockets under /run stay hidden with the network on; the resolver stays reachable",
  );
});

Deno.test("bubblewrap arguments: planned mounts in order, sized tmpfs, limit binds last, older bubblewrap", () => {
  const args = bubblewrapArgs({
    writable: ["/w"],
    cwd: "/w",
    mounts: [
      { kind: "bind", path: "/w" },
      { kind: "bind", path: "/w/.git" },
      { kind: "ro-bind", path: "/w/.git/hooks" },
      { kind: "tmpfs", path: "/h/.ssh" },
      { kind: "hide-file", path: "/h/.netrc" },
    ],
    binds: [["/sys/fs/cgroup/pids/p/cgroup.procs", "/run/.paddock-limits/0"]],
    tmpfsBytes: 1024,
  }).join(" ");
  assert.match(
    args,
    /--size 1024 --tmpfs \/tmp --size 1024 --tmpfs \/var\/tmp --size 1024 --tmpfs \/dev\/shm /,
  );
  assert.match(
    args,
    /--bind \/w \/w --bind \/w\/.git \/w\/.git --ro-bind \/w\/.git\/hooks \/w\/.git\/hooks --tmpfs \/h\/.ssh --dev-bind \/dev\/null \/h\/.netrc --bind \/sys\/fs\/cgroup\/pids\/p\/cgroup.procs \/run\/.paddock-limits\/0 --chdir/,
  );
  const old = bubblewrapArgs({
    writable: [],
    cwd: "/",
    tmpfsBytes: 1024,
    features: { disableUserns: false, tmpfsSize: false },
  });
  assert.ok(!old.includes("--disable-userns") && !old.includes("--size"));
});

Deno.test("The Seatbelt profile allows writes only to the workspace and named files, and network only when allowed", () => {
  const profile = seatbeltProfile({ writable: ['/Users/a "b"'], writableFiles: ["/o/cwd"] });
  assert.match(profile, /^\(version 1\)\n\(deny default\)\n/);
  assert.match(profile, /\(allow file-write\* \(subpath "\/Users\/a \\"b\\""\) \(literal "\/o\/cwd"\)/);
  assert.doesNotMatch(profile, /network/);
  assert.match(seatbeltProfile({ writable: [], allowNetwork: true }), /\(allow network\*\)/);
});

Deno.test({
  name: "sandbox-exec runs a command and refuses a write outside the workspace (macOS)",
  ignore: Deno.build.os !== "darwin",
  fn: () =>
    inSandbox(async (run, session) => {
      const r = await run("echo ok > in.txt; echo x > /usr/local/paddock-denied 2>&1; cat in.txt");
      assert.match(r.text, /Operation not permitted/);
      assert.equal(Deno.readTextFileSync(`${session.roots[0]}/in.txt`), "ok\n");
    }),
});

/**
 * THREATS.md P2: the sandbox holds as root. Each attack runs through the real
 * sandbox (`sandboxCommand` → `Deno.Command`) and is judged on the host.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { exists, HAS_BWRAP, IS_ROOT, listing, sandboxed, tempDir } from "./_sandboxed.ts";

if (HAS_BWRAP && !IS_ROOT) {
  console.warn("p2_sandbox_root_test: not running as root, so these tests prove less");
}

Deno.test({
  name: "P2 mount tricks: remounting / read-write fails and the host stays unwritten",
  ignore: !HAS_BWRAP,
  fn: async () => {
    await using ws = await tempDir();
    const mark = `paddock-p2-${crypto.randomUUID()}`;
    const r = await sandboxed(
      `mount -o remount,rw / 2>&1 && echo REMOUNTED; mount -o remount,rw,bind / 2>&1 && echo REMOUNTED; echo x > /etc/${mark}; echo x > /${mark}; true`,
      { writable: [ws.path] },
    );
    assert.doesNotMatch(r.out, /REMOUNTED/);
    assert.ok(!exists(`/etc/${mark}`) && !exists(`/${mark}`), "nothing written on the host");
  },
});

Deno.test({
  name: "P2 mount tricks: unmounting the private /tmp does not reveal the host's /tmp",
  ignore: !HAS_BWRAP,
  fn: async () => {
    await using ws = await tempDir();
    const marker = `/tmp/paddock-p2-${crypto.randomUUID()}`;
    const secret = crypto.randomUUID();
    Deno.writeTextFileSync(marker, secret);
    try {
      const r = await sandboxed(
        `cat ${marker} 2>/dev/null; umount /tmp 2>&1; umount -l /tmp 2>&1; cat ${marker} 2>/dev/null; true`,
        { writable: [ws.path] },
      );
      assert.ok(!r.out.includes(secret), r.out);
      assert.match(r.out, /umount/);
    } finally {
      Deno.removeSync(marker);
    }
  },
});

Deno.test({
  name: "P2 device nodes: mknod of a block or character device fails, in /tmp and in the workspace",
  ignore: !HAS_BWRAP,
  fn: async () => {
    await using ws = await tempDir();
    const r = await sandboxed(
      "mknod /tmp/sda b 8 0 2>&1 && echo MADE; mknod ./sda b 8 0 2>&1 && echo MADE; mknod ./mem c 1 1 2>&1 && echo MADE; true",
      { writable: [ws.path] },
    );
    assert.doesNotMatch(r.out, /MADE/);
    assert.deepEqual(listing(ws.path), [], "no device node on the host");
  },
});

Deno.test({
  name:
    "P2 privilege: no capabilities at all, none to regain (empty bounding set, no_new_privs, no nested user namespace)",
  ignore: !HAS_BWRAP,
  fn: async () => {
    await using ws = await tempDir();
    const r = await sandboxed(
      "grep -E '^(CapInh|CapPrm|CapEff|CapBnd|CapAmb|NoNewPrivs)' /proc/self/status; unshare -Ur true 2>/dev/null && echo NESTED; unshare -m true 2>/dev/null && echo MOUNTNS; true",
      { writable: [ws.path] },
    );
    for (const cap of ["CapInh", "CapPrm", "CapEff", "CapBnd", "CapAmb"]) {
      assert.match(r.out, new RegExp(`^${cap}:\\s+0+$`, "m"), `${cap} is empty`);
    }
    assert.match(r.out, /^NoNewPrivs:\s+1$/m);
    assert.doesNotMatch(r.out, /NESTED|MOUNTNS/, "no namespace to gain capabilities in");
  },
});

Deno.test({
  name: "P2 writes outside the workspace fail: system folders, the home folder, the workspace's parent",
  ignore: !HAS_BWRAP,
  fn: async () => {
    await using ws = await tempDir();
    const name = `paddock-p2-${crypto.randomUUID()}`;
    const home = Deno.env.get("HOME") ?? "/root";
    const targets = ["/etc", "/usr/local", "/var", home, join(ws.path, "..")].map((d) => join(d, name));
    const r = await sandboxed(
      `${targets.map((t) => `echo x > '${t}' 2>/dev/null`).join("; ")}; echo inside > inside.txt`,
      { writable: [ws.path] },
    );
    assert.equal(r.code, 0, r.out);
    for (const t of targets.slice(0, 4)) assert.ok(!exists(t), `nothing at ${t}`);
    assert.ok(!exists(targets[4]), "the parent's /tmp is the sandbox's own");
    assert.equal(Deno.readTextFileSync(join(ws.path, "inside.txt")), "inside\n");
  },
});

Deno.test({
  name: "P2 identity: files the sandbox creates belong to the real user outside",
  ignore: !HAS_BWRAP,
  fn: async () => {
    await using ws = await tempDir();
    const r = await sandboxed("id -u; touch made", { writable: [ws.path] });
    assert.equal(r.out.trim(), String(Deno.uid()));
    assert.equal(Deno.statSync(join(ws.path, "made")).uid, Deno.uid());
  },
});

Deno.test({
  name: "P2 host processes: the sandbox can neither see nor signal them",
  ignore: !HAS_BWRAP,
  fn: async () => {
    await using ws = await tempDir();
    const r = await sandboxed(
      `kill -0 ${Deno.pid} 2>/dev/null && echo SIGNALLED; ls /proc | grep -c '^[0-9]'`,
      {
        writable: [ws.path],
      },
    );
    assert.doesNotMatch(r.out, /SIGNALLED/);
    assert.ok(Number(r.out.trim()) < 10, `only its own processes: ${r.out}`);
  },
});

Deno.test({
  name: "P2 host sockets: a root-owned socket under /run is out of reach, with the network allowed too",
  ignore: !HAS_BWRAP || !IS_ROOT,
  fn: async () => {
    await using ws = await tempDir();
    const path = `/run/paddock-p2-${crypto.randomUUID().slice(0, 8)}.sock`;
    const listener = Deno.listen({ transport: "unix", path });
    let reached = false;
    const accepting = (async () => {
      for await (const conn of listener) {
        reached = true;
        conn.close();
      }
    })();
    try {
      for (const allowNetwork of [false, true]) {
        const r = await sandboxed(`ls -l ${path} 2>&1; true`, {
          writable: [ws.path],
          settings: { allowNetwork },
        });
        assert.match(r.out, /No such file/, `allowNetwork ${allowNetwork}: ${r.out}`);
      }
      assert.equal(reached, false);
    } finally {
      listener.close();
      await accepting.catch(() => {});
      await Deno.remove(path).catch(() => {});
    }
  },
});

Deno.test({
  name: "P2 cgroup escape: the command cannot move itself out of its limits cgroup",
  ignore: !HAS_BWRAP,
  fn: async () => {
    await using ws = await tempDir();
    const r = await sandboxed(
      'for f in /sys/fs/cgroup/cgroup.procs /sys/fs/cgroup/*/cgroup.procs; do echo $$ 2>/dev/null > "$f" && echo "MOVED $f"; done; grep -E "pids|memory|^0::" /proc/self/cgroup',
      { writable: [ws.path] },
    );
    assert.doesNotMatch(r.out, /MOVED/);
    if (r.limits.startsWith("cgroup")) assert.match(r.out, /paddock-\d+-/, "it runs in its own cgroup");
  },
});

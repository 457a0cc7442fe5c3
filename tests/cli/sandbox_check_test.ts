import assert from "node:assert/strict";
import { fromFileUrl } from "../_helpers/paths.ts";
import { HAS_BWRAP } from "../security/_sandboxed.ts";

const CLI = fromFileUrl(new URL("../../cli.ts", import.meta.url));

async function paddock(args: string[], env: Record<string, string> = {}) {
  const { code, stdout, stderr } = await new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", CLI, ...args],
    stdout: "piped",
    stderr: "piped",
    env: { RUST_BACKTRACE: "", ...env },
  }).output();
  return { code, out: new TextDecoder().decode(stdout), err: new TextDecoder().decode(stderr) };
}

Deno.test({
  name: "paddock sandbox check prints one row per escape probe and exits 0 when all pass",
  ignore: !HAS_BWRAP,
  fn: async () => {
    const r = await paddock(["sandbox", "check"]);
    const lines = r.out.trim().split("\n");
    assert.match(lines[0], /^probe +result +detail$/);
    for (
      const probe of [
        "Write outside the workspace",
        "Remount / read-write",
        "Create a block device (mknod)",
        "Read credential stores in the home folder",
        "Create protected paths",
        "Fork storm",
        "Memory hog",
      ]
    ) {
      assert.ok(lines.some((l) => l.startsWith(probe) && / pass /.test(l)), `${probe} passes:\n${r.out}`);
    }
    assert.match(lines.at(-1)!, /^all \d+ probes passed$/);
    assert.equal(r.code, 0, r.err);
  },
});

Deno.test({
  name: "paddock sandbox check --json gives the rows and ok",
  ignore: !HAS_BWRAP,
  fn: async () => {
    const r = await paddock(["sandbox", "check", "--json"]);
    const report = JSON.parse(r.out);
    assert.equal(report.ok, true);
    assert.ok(report.rows.length >= 10);
    assert.ok(
      report.rows.every((row: { probe: string; ok: boolean }) => typeof row.probe === "string" && row.ok),
    );
    assert.equal(r.code, 0);
  },
});

Deno.test("paddock sandbox check exits 1 and says how to fix it where the sandbox cannot start", async () => {
  // no bwrap on PATH: the sandbox cannot start
  const r = await paddock(["sandbox", "check"], { PATH: "/nonexistent" });
  assert.equal(r.code, 1, r.out + r.err);
  assert.match(r.err, /paddock sandbox: .*(bubblewrap|not found|bwrap)/i);
});

Deno.test("paddock sandbox needs an action", async () => {
  const r = await paddock(["sandbox"]);
  assert.equal(r.code, 2);
  assert.match(r.err, /missing action: "check"/);
});

import assert from "node:assert/strict";
import { fromFileUrl } from "../_helpers/paths.ts";
import { toDenoFlags } from "../../src/permissions/mod.ts";
import { tempWorkspace } from "../_helpers/workspace.ts";
import { applyLimits } from "../../src/sandbox/limits.ts";

const child = fromFileUrl(new URL("../_helpers/flags_child.ts", import.meta.url));

Deno.test("Under the computed flags Deno itself refuses what a tool's class does not grant", async () => {
  await using ws = await tempWorkspace();
  await ws.write("hello.txt", "hi there");
  await Deno.mkdir(ws.path(".out"));
  const flags = toDenoFlags({ tools: [{ name: "Peek", sideEffect: "ReadOnly" }], roots: [ws.dir] });
  assert.deepEqual(flags, ["--no-prompt", `--allow-read=${ws.dir}`]);
  const { code, stdout, stderr } = await new Deno.Command(Deno.execPath(), {
    args: ["run", ...flags, child, ws.dir],
    stdout: "piped",
    stderr: "piped",
    env: { RUST_BACKTRACE: "" },
  }).output();
  const text = new TextDecoder().decode(stdout);
  assert.equal(code, 0, new TextDecoder().decode(stderr));
  const out = JSON.parse(text);
  assert.deepEqual(out.Peek, { ok: true, text: "hi there" });
  for (const name of ["Scribble", "Shell", "Phone"]) {
    assert.equal(out[name].ok, false, name);
    assert.equal(out[name].code, "permission_denied", name);
    assert.match(out[name].text, /^Error: Deno refused: Requires (write|run|net) access/, name);
  }
  await assert.rejects(Deno.stat(ws.path("out.txt")), Deno.errors.NotFound);
  // the start-up check sees the same: the Mutating tool lacks write and is disabled
  assert.match(out.editDisabled, /run with --allow-write=/);
  const edit = out.grants.tools.find((t: { tool: string }) => t.tool === "Edit");
  assert.deepEqual(edit.missing, [`--allow-write=${ws.dir}`]);
  assert.equal(out.grants.tools.find((t: { tool: string }) => t.tool === "Peek").granted, true);
  assert.deepEqual(out.grants.excess, []);
});

Deno.test("The start-up check warns when the process holds more than it needs", async () => {
  await using ws = await tempWorkspace();
  await ws.write("hello.txt", "hi");
  await Deno.mkdir(ws.path(".out"));
  const { stdout } = await new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", child, ws.dir],
    stdout: "piped",
    stderr: "null",
  }).output();
  const out = JSON.parse(new TextDecoder().decode(stdout));
  const excess: string[] = out.grants.excess;
  assert.ok(
    excess.some((e) => e.startsWith("holds --allow-read for everything, but needs only --allow-read=")),
  );
  assert.ok(excess.some((e) => e === "holds --allow-run, which no enabled tool needs"));
});

const LAUNCH = fromFileUrl(new URL("../../launch.ts", import.meta.url));
const HAS_BWRAP = Deno.build.os === "linux" &&
  new Deno.Command("bash", { args: ["-c", "command -v bwrap"], stdout: "null", stderr: "null" }).outputSync()
    .success;

Deno.test({
  name: "deno task start exec Bash runs the command in the sandbox under the computed flags",
  ignore: !HAS_BWRAP,
  fn: async () => {
    await using ws = await tempWorkspace();
    const run = (args: string[]) =>
      new Deno.Command(Deno.execPath(), {
        // what `deno task start` runs
        args: ["run", "--no-prompt", "--allow-read", "--allow-env", "--allow-run", LAUNCH, ...args],
        cwd: ws.dir,
        stdout: "piped",
        stderr: "piped",
        env: { RUST_BACKTRACE: "" },
      }).output();
    const perms = await run(["perms", "--json", "--", "exec", "Bash", "{}"]);
    const flags: string[] = JSON.parse(new TextDecoder().decode(perms.stdout)).flags;
    assert.ok(
      flags.some((f) => f.startsWith("--allow-run=") && f.split(/[=,]/).includes("bwrap")),
      flags.join(" "),
    );
    assert.ok(!flags.includes("--allow-all") && !flags.includes("--allow-read"), "least privilege still");
    const command =
      "echo hi; echo x > /etc/escape || true; test -d /run/.paddock-limits && echo limits-cgroup";
    const r = await run([
      "exec",
      "Bash",
      JSON.stringify({ command }),
      "--json",
      "--permission-mode",
      "bypassPermissions",
    ]);
    const stderr = new TextDecoder().decode(r.stderr);
    assert.equal(r.code, 0, stderr);
    const result = JSON.parse(new TextDecoder().decode(r.stdout));
    assert.match(result.text, /^hi\n/);
    assert.equal(result.data.sandboxed, true);
    await assert.rejects(Deno.stat("/etc/escape"), Deno.errors.NotFound);
    // where this process (-A) can give a command its limits cgroup, the computed flags can too
    const limits = applyLimits({});
    await limits.release();
    if (limits.mechanism !== "rlimit") assert.match(result.text, /limits-cgroup/);
  },
});

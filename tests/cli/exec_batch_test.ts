import assert from "node:assert/strict";
import { fromFileUrl } from "../_helpers/paths.ts";
import { tempWorkspace } from "../_helpers/workspace.ts";

// P8, every call ends: one failing call never ends an `exec -` batch, and a signal ends the process.

const CLI = fromFileUrl(new URL("../../cli.ts", import.meta.url));

async function execBatch(cwd: string, calls: string[]) {
  const child = new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", CLI, "exec", "--quiet", "--no-sandbox", "--permission-mode", "acceptEdits", "-"],
    cwd,
    stdin: "piped",
    stdout: "piped",
    stderr: "piped",
    signal: AbortSignal.timeout(60_000),
  }).spawn();
  const w = child.stdin.getWriter();
  await w.write(new TextEncoder().encode(calls.join("\n") + "\n"));
  await w.close();
  const { code, stdout, stderr } = await child.output();
  const err = new TextDecoder().decode(stderr);
  const results = new TextDecoder().decode(stdout).trim().split("\n").map((l) => JSON.parse(l));
  return { code, err, results };
}

const call = (tool: string, input: unknown) => JSON.stringify({ tool, input });

Deno.test("exec - gives every call a result line when calls in the middle fail", async () => {
  await using ws = await tempWorkspace();
  const file = ws.path("a.txt");
  await Deno.writeTextFile(file, "one\n");
  const r = await execBatch(ws.dir, [
    call("Read", { file_path: file }),
    "{not json",
    call("Read", { file_path: 42 }),
    call("Nope", {}),
    call("Edit", { file_path: file, old_string: "missing", new_string: "x" }),
    call("Edit", { file_path: file, old_string: "one", new_string: "two" }),
    call("Read", { file_path: file }),
  ]);
  assert.equal(r.code, 1, r.err);
  assert.deepEqual(r.results.map((x) => x.line), [1, 2, 3, 4, 5, 6, 7]);
  assert.deepEqual(r.results.map((x) => x.ok), [true, false, false, false, false, true, true]);
  for (const x of r.results.filter((x) => !x.ok)) {
    assert.match(x.text, /^Error: /);
    assert.ok(x.error.code);
  }
  assert.match(r.results[6].text, /two/);
});

Deno.test("exec - survives an Edit that would grow a file to 310 MiB, and runs the calls after it", async () => {
  await using ws = await tempWorkspace();
  const file = ws.path("big.txt");
  // 10,000 lines of 100 "a": replacing each "a" with 310 characters would make 310 MiB
  await Deno.writeTextFile(file, ("a".repeat(100) + "\n").repeat(10_000));
  const small = ws.path("small.txt");
  await Deno.writeTextFile(small, "x\n");
  const r = await execBatch(ws.dir, [
    call("Read", { file_path: file, limit: 1 }),
    call("Edit", { file_path: file, old_string: "a", new_string: "b".repeat(310), replace_all: true }),
    call("Read", { file_path: small }),
  ]);
  assert.equal(r.results.length, 3, r.err);
  assert.equal(r.results[1].ok, false);
  assert.equal(r.results[1].error.code, "invalid_input");
  assert.match(
    r.results[1].text,
    /^Error: Cannot edit ".*big\.txt": the result of 1000000 replacements would be/,
  );
  assert.ok(r.results[2].ok, r.results[2].text);
  assert.equal((await Deno.stat(file)).size, 1_010_000, "the file is untouched");
});

for (const signal of ["SIGTERM", "SIGINT"] as const) {
  Deno.test(`${signal} ends exec within a few seconds while a Bash call sleeps`, async () => {
    await using ws = await tempWorkspace();
    const child = new Deno.Command(Deno.execPath(), {
      args: [
        "run",
        "-A",
        CLI,
        "exec",
        "--quiet",
        "--no-sandbox",
        "--permission-mode",
        "bypassPermissions",
        "Bash",
        JSON.stringify({ command: "sleep 30" }),
      ],
      cwd: ws.dir,
      stdin: "null",
      stdout: "piped",
      stderr: "piped",
      signal: AbortSignal.timeout(60_000),
    }).spawn();
    // give the CLI time to start the call (nothing is printed before the call ends, so wait on time)
    await new Promise((r) => setTimeout(r, 3000));
    const sent = Date.now();
    child.kill(signal);
    const status = await child.output();
    const took = Date.now() - sent;
    assert.ok(took < 5000, `the process took ${took} ms to end after ${signal}`);
    assert.equal(status.code, 130);
  });
}

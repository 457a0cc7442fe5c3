import assert from "node:assert/strict";
import { toDenoFlags } from "../../src/permissions/deno_flags.ts";
import { setupAgent } from "../../src/cli/agent_setup.ts";
import type { AgentFlagValues } from "../../src/cli/flags.ts";
import type { CliIo } from "../../src/cli/command.ts";
import { main } from "../../src/cli/main.ts";
import { startFakeLlm } from "../_helpers/fake_llm.ts";
import { fromFileUrl } from "../_helpers/paths.ts";
import { tempWorkspace } from "../_helpers/workspace.ts";

const CLI = fromFileUrl(new URL("../../cli.ts", import.meta.url));

function memoryIo(
  cwd: string,
  env: Record<string, string>,
  stdin = "",
): CliIo & { stdout: string[]; stderr: string[] } {
  const stdout: string[] = [];
  const stderr: string[] = [];
  return {
    stdout,
    stderr,
    out: (t) => stdout.push(t),
    err: (t) => stderr.push(t),
    stdin: new Blob([stdin]).stream(),
    isTerminal: false,
    env,
    cwd,
    signal: new AbortController().signal,
  };
}

Deno.test("paddock run with no model configured says what to set and exits 2", async () => {
  await using ws = await tempWorkspace();
  const io = memoryIo(ws.dir, {});
  const code = await main(["run", "hello"], io);
  assert.equal(code, 2);
  const msg = io.stderr.join("");
  assert.match(msg, /No model is configured/);
  assert.match(msg, /PADDOCK_MODEL/);
  assert.match(msg, /OPENAI_BASE_URL/);
  assert.match(msg, /OPENAI_API_KEY/);
});

Deno.test("paddock run --json streams every event as a JSON line and reads the model from flags", async () => {
  await using ws = await tempWorkspace();
  await using llm = await startFakeLlm([{ text: "Hello there" }]);
  const io = memoryIo(ws.dir, {
    PADDOCK_MODEL: "env-model",
    OPENAI_BASE_URL: "http://127.0.0.1:1/v1",
    OPENAI_API_KEY: "sk-test",
  });
  const code = await main([
    "run",
    "--json",
    "--quiet",
    "--model",
    "flag-model",
    "--base-url",
    llm.baseUrl,
    "say",
    "hi",
  ], io);
  assert.equal(code, 0, io.stderr.join(""));
  const events = io.stdout.join("").trim().split("\n").map((l) => JSON.parse(l));
  assert.equal(events.at(-1).type, "result");
  assert.equal(events.at(-1).text, "Hello there");
  assert.equal(llm.requests[0].body.model, "flag-model");
  assert.equal(llm.requests[0].messages.at(-1).content, "say hi");
  assert.equal(llm.requests[0].headers.get("authorization"), "Bearer sk-test");
  assert.ok(
    llm.requests[0].toolNames.includes("Agent"),
    "the Agent tool is registered when a model is configured",
  );
});

Deno.test("paddock run reports a 401 naming the endpoint and exits 1", async () => {
  await using ws = await tempWorkspace();
  await using llm = await startFakeLlm([{ status: 401, body: { error: { message: "Incorrect API key" } } }]);
  const io = memoryIo(ws.dir, { PADDOCK_MODEL: "m", OPENAI_BASE_URL: llm.baseUrl });
  const code = await main(["run", "--quiet", "hi"], io);
  assert.equal(code, 1);
  assert.match(
    io.stderr.join(""),
    new RegExp(`Error: The model endpoint "${llm.baseUrl}" refused the API key \\(401\\)`),
  );
});

Deno.test("paddock run as a real process with computed permission flags edits a file", async () => {
  await using ws = await tempWorkspace();
  const out = await Deno.makeTempDir({ prefix: "paddock-run-out-" });
  try {
    const file = await ws.write("src/app.txt", "greeting = hello\n");
    await using llm = await startFakeLlm([
      { text: "Reading first.", toolCalls: [{ name: "Read", arguments: { file_path: file } }] },
      {
        toolCalls: [{
          name: "Edit",
          arguments: { file_path: file, old_string: "hello", new_string: "goodbye" },
        }],
      },
      {
        toolCalls: [{
          name: "Bash",
          arguments: { command: "cat src/app.txt", description: "Show the file" },
        }],
      },
      { text: "Changed the greeting." },
    ]);
    const env = { PADDOCK_MODEL: "fake-model", OPENAI_BASE_URL: llm.baseUrl };
    const args = [
      "--root",
      ws.dir,
      "--output-dir",
      out,
      "--permission-mode",
      "acceptEdits",
      "--allow",
      "Bash(cat src/app.txt)",
    ];
    // the same runtime the CLI builds, so the flags are exactly what it needs
    const values = { root: [ws.dir], "output-dir": out, quiet: true } as AgentFlagValues;
    const setup = await setupAgent(values, memoryIo(ws.dir, env));
    assert.ok(typeof setup !== "number");
    const flags = toDenoFlags(setup.runtime.policy());
    await setup.runtime.close();
    assert.ok(!flags.includes("-A") && !flags.includes("--allow-all"));
    assert.ok(
      flags.some((f) => f.startsWith("--allow-net=") && f.includes(`127.0.0.1:${llm.port}`)),
      flags.join(" "),
    );
    const passEnv: Record<string, string> = { ...env, NO_COLOR: "1" };
    for (const k of ["HOME", "PATH", "DENO_DIR", "XDG_CACHE_HOME"]) {
      const v = Deno.env.get(k);
      if (v !== undefined) passEnv[k] = v;
    }
    const child = await new Deno.Command(Deno.execPath(), {
      args: ["run", ...flags, CLI, "run", ...args, "Change the greeting to goodbye"],
      cwd: ws.dir,
      clearEnv: true,
      env: passEnv,
      stdin: "null",
      stdout: "piped",
      stderr: "piped",
    }).output();
    const stdout = new TextDecoder().decode(child.stdout);
    const stderr = new TextDecoder().decode(child.stderr);
    assert.equal(child.code, 0, `stdout:\n${stdout}\nstderr:\n${stderr}`);
    assert.equal(await Deno.readTextFile(file), "greeting = goodbye\n");
    assert.match(stdout, /Reading first\.\nChanged the greeting\./);
    assert.match(stderr, new RegExp(`→ Read ${file}`));
    assert.match(stderr, /-greeting = hello\n.*\+greeting = goodbye/s, "the edit's diff is shown");
    assert.match(
      stderr,
      /→ Bash cat src\/app\.txt {2}# Show the file\ngreeting = goodbye\n/,
      `live Bash output:\n${stderr}`,
    );
    assert.match(stderr, /4 turns, 60 tokens \(40 in, 20 out\), 3 tool calls/);
    assert.deepEqual(llm.problems, []);
  } finally {
    await Deno.remove(out, { recursive: true });
  }
});

Deno.test("paddock chat keeps the conversation across prompts read from stdin", async () => {
  await using ws = await tempWorkspace();
  await using llm = await startFakeLlm([{ text: "First." }, { text: "Second." }]);
  const io = memoryIo(
    ws.dir,
    { PADDOCK_MODEL: "m", OPENAI_BASE_URL: llm.baseUrl },
    "one\n\ntwo\n/exit\nnever\n",
  );
  const code = await main(["chat", "--quiet", "--no-stream"], io);
  assert.equal(code, 0, io.stderr.join(""));
  assert.equal(llm.requests.length, 2);
  const roles = llm.requests[1].messages.map((m: { role: string; content: string }) =>
    `${m.role}:${m.content}`
  );
  assert.deepEqual(roles.slice(1), ["user:one", "assistant:First.", "user:two"]);
  assert.equal(io.stdout.join(""), "First.\nSecond.\n");
  assert.ok(llm.requests.every((r) => !r.body.stream), "--no-stream asks for whole answers");
});

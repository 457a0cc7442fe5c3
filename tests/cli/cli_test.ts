import assert from "node:assert/strict";
import { fromFileUrl } from "../_helpers/paths.ts";
import { tempWorkspace } from "../_helpers/workspace.ts";

const CLI = fromFileUrl(new URL("../../cli.ts", import.meta.url));
const EXAMPLE = fromFileUrl(new URL("../../examples/hello_tool.ts", import.meta.url));
const SCRIBBLE = fromFileUrl(new URL("../_helpers/mutating_tool.ts", import.meta.url));
const REPO = fromFileUrl(new URL("../../", import.meta.url)).replace(/\/$/, "");

async function paddock(
  args: string[],
  opts: { cwd: string; stdin?: string; flags?: string[]; env?: Record<string, string> },
) {
  const child = new Deno.Command(Deno.execPath(), {
    args: ["run", ...(opts.flags ?? ["-A"]), CLI, ...args],
    cwd: opts.cwd,
    stdin: opts.stdin === undefined ? "null" : "piped",
    stdout: "piped",
    stderr: "piped",
    env: { RUST_BACKTRACE: "", ...opts.env },
  }).spawn();
  if (opts.stdin !== undefined) {
    const w = child.stdin.getWriter();
    await w.write(new TextEncoder().encode(opts.stdin));
    await w.close();
  }
  const { code, stdout, stderr } = await child.output();
  return { code, out: new TextDecoder().decode(stdout), err: new TextDecoder().decode(stderr) };
}

Deno.test("paddock tools --json prints OpenAI-format definitions", async () => {
  await using ws = await tempWorkspace();
  const r = await paddock(["tools", "--json", "--tools", EXAMPLE], { cwd: ws.dir });
  assert.equal(r.code, 0, r.err);
  const defs = JSON.parse(r.out);
  const hello = defs.find((d: { function: { name: string } }) => d.function.name === "Hello");
  assert.deepEqual(hello.function.parameters.required, ["name"]);
  assert.equal(hello.type, "function");
});

Deno.test("paddock exec runs a user tool through the pipeline with exit codes 0, 1 and 2", async () => {
  await using ws = await tempWorkspace();
  const ok = await paddock(["exec", "--quiet", "--tools", EXAMPLE, "Hello", '{"name":"Ada"}'], {
    cwd: ws.dir,
  });
  assert.equal(ok.code, 0, ok.err);
  assert.equal(ok.out, "Hello, Ada (greeting 1)\n");
  const bad = await paddock(["exec", "--quiet", "--tools", EXAMPLE, "Hello", '{"name":""}'], { cwd: ws.dir });
  assert.equal(bad.code, 1);
  assert.match(bad.err, /^Error: Invalid input for Hello: "name"/);
  const usage = await paddock(["exec", "--quiet"], { cwd: ws.dir });
  assert.equal(usage.code, 2);
  assert.match(usage.err, /name a tool/);
  const unknown = await paddock(["frobnicate"], { cwd: ws.dir });
  assert.equal(unknown.code, 2);
  const flag = await paddock(["exec", "--no-such-flag"], { cwd: ws.dir });
  assert.equal(flag.code, 2);
});

Deno.test("paddock exec - runs JSON lines in one session and reports bad lines", async () => {
  await using ws = await tempWorkspace();
  const lines = [
    JSON.stringify({ tool: "Hello", input: { name: "A" } }),
    "{not json",
    JSON.stringify({ tool: "Hello", input: { name: "B" } }),
    JSON.stringify({ tool: "Nope", input: {} }),
  ].join("\n") + "\n";
  const r = await paddock(["exec", "--quiet", "--tools", EXAMPLE, "-"], { cwd: ws.dir, stdin: lines });
  assert.equal(r.code, 1);
  const results = r.out.trim().split("\n").map((l) => JSON.parse(l));
  assert.equal(results.length, 4);
  assert.equal(results[0].text, "Hello, A (greeting 1)");
  assert.match(results[1].text, /^Error: Line 2 is not valid JSON/);
  assert.equal(results[2].text, "Hello, B (greeting 2)", "session state carries across lines");
  assert.equal(results[3].error.code, "tool_not_found");
});

Deno.test("paddock perms prints a least-privilege deno run line that works", async () => {
  await using ws = await tempWorkspace();
  const r = await paddock([
    "perms",
    "--json",
    "--root",
    ws.dir,
    "--",
    "exec",
    "--quiet",
    "--tools",
    EXAMPLE,
    "Hello",
    '{"name":"Z"}',
  ], {
    cwd: ws.dir,
  });
  assert.equal(r.code, 0, r.err);
  const { flags, line } = JSON.parse(r.out);
  assert.equal(flags[0], "--no-prompt");
  assert.ok(!flags.includes("-A") && !flags.includes("--allow-all"));
  assert.match(line, /^deno run --no-prompt /);
  const readable =
    flags.find((f: string) => f.startsWith("--allow-read="))?.slice("--allow-read=".length).split(",") ?? [];
  assert.ok(
    readable.some((r: string) => EXAMPLE === r || EXAMPLE.startsWith(`${r}/`)),
    "the --tools module is readable",
  );
  const run = await paddock([
    "exec",
    "--quiet",
    "--root",
    ws.dir,
    "--tools",
    EXAMPLE,
    "Hello",
    '{"name":"Z"}',
  ], {
    cwd: ws.dir,
    flags,
  });
  assert.equal(run.code, 0, run.err);
  assert.equal(run.out, "Hello, Z (greeting 1)\n");
});

Deno.test("paddock --help and each command's --help describe the usage", async () => {
  await using ws = await tempWorkspace();
  const top = await paddock(["--help"], { cwd: ws.dir });
  assert.equal(top.code, 0);
  for (const name of ["tools", "perms", "exec"]) {
    assert.match(top.out, new RegExp(`^  ${name} `, "m"));
    const h = await paddock([name, "--help"], { cwd: ws.dir });
    assert.equal(h.code, 0);
    assert.match(h.out, new RegExp(`^Usage: paddock ${name}`));
  }
});

Deno.test("A non-interactive exec never waits on a prompt: an unapproved Mutating call is refused", async () => {
  await using ws = await tempWorkspace();
  const denied = await paddock(["exec", "--quiet", "--tools", SCRIBBLE, "Scribble", '{"text":"a"}'], {
    cwd: ws.dir,
  });
  assert.equal(denied.code, 1);
  assert.match(denied.err, /needs approval, and no approver is set/);
  await assert.rejects(Deno.stat(ws.path("notes.txt")));
  const allowed = await paddock([
    "exec",
    "--quiet",
    "--allow",
    "Scribble",
    "--tools",
    SCRIBBLE,
    "Scribble",
    '{"text":"b"}',
  ], {
    cwd: ws.dir,
  });
  assert.equal(allowed.code, 0, allowed.err);
  const edits = await paddock(
    ["exec", "--quiet", "--permission-mode", "acceptEdits", "--tools", SCRIBBLE, "Scribble", '{"text":"c"}'],
    { cwd: ws.dir },
  );
  assert.equal(edits.code, 0, edits.err);
  assert.equal(await Deno.readTextFile(ws.path("notes.txt")), "b\nc\n");
  const plan = await paddock([
    "exec",
    "--quiet",
    "--permission-mode",
    "plan",
    "--allow",
    "Scribble",
    "--tools",
    SCRIBBLE,
    "Scribble",
    '{"text":"d"}',
  ], {
    cwd: ws.dir,
  });
  assert.equal(plan.code, 1);
  assert.match(plan.err, /cannot run in plan mode/);
});

Deno.test("At start-up a tool whose Deno permission is missing is disabled, naming the flag", async () => {
  await using ws = await tempWorkspace();
  const r = await paddock(["exec", "--allow", "Scribble", "--tools", SCRIBBLE, "Scribble", '{"text":"a"}'], {
    cwd: ws.dir,
    flags: ["--no-prompt", `--allow-read=${ws.dir},${REPO}`, "--allow-env=PATH"],
    env: { PATH: ws.dir },
  });
  assert.equal(r.code, 1);
  assert.match(r.err, new RegExp(`missing  Scribble: disabled; run with --allow-write=${ws.dir}`));
  assert.match(r.err, /program "definitely-not-installed-tool" is not on PATH/);
  assert.match(r.err, /Tool "Scribble" is disabled: Deno has not granted what it needs/);
});

Deno.test("Unknown permission modes are usage errors", async () => {
  await using ws = await tempWorkspace();
  const r = await paddock(["exec", "--permission-mode", "yolo", "Hello"], { cwd: ws.dir });
  assert.equal(r.code, 2);
  assert.match(r.err, /--permission-mode must be one of/);
});

Deno.test("paddock exec WebFetch under the computed flags reaches only the --allow-host host", async () => {
  await using ws = await tempWorkspace();
  await using server = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen() {} },
    () =>
      new Response(
        "<html><head><title>T</title></head><body><h1>Hello page</h1><p>Body text</p></body></html>",
        {
          headers: { "content-type": "text/html" },
        },
      ),
  );
  const host = `127.0.0.1:${server.addr.port}`;
  const common = ["--root", ws.dir, "--allow-host", host, "--allow", "WebFetch"];
  const perms = await paddock(["perms", "--json", ...common, "--", "exec"], { cwd: ws.dir });
  assert.equal(perms.code, 0, perms.err);
  const { flags } = JSON.parse(perms.out);
  assert.ok(flags.includes(`--allow-net=${host}`), flags.join(" "));
  const input = JSON.stringify({ url: `http://${host}/`, prompt: "What is the heading?" });
  const ok = await paddock(["exec", "--quiet", ...common, "WebFetch", input], { cwd: ws.dir, flags });
  assert.equal(ok.code, 0, ok.err);
  assert.match(ok.out, /# Hello page/);
  const other = JSON.stringify({ url: `http://localhost:${server.addr.port}/`, prompt: "x" });
  const refused = await paddock(["exec", "--quiet", ...common, "WebFetch", other], { cwd: ws.dir, flags });
  assert.equal(refused.code, 1);
  assert.match(refused.err, /^Error: /);
});

Deno.test("The project's trusted .mcp.json is connected by tools and exec, and perms grants its programs", async () => {
  await using ws = await tempWorkspace();
  // project files take effect once trusted: a private config folder holds the record
  await using home = await tempWorkspace("paddock-home-");
  const env = { XDG_CONFIG_HOME: home.dir };
  await ws.write(
    ".mcp.json",
    JSON.stringify({
      mcpServers: {
        everything: {
          command: Deno.execPath(),
          args: ["run", "-A", "npm:@modelcontextprotocol/server-everything@2026.8.31", "stdio"],
        },
      },
    }),
  );
  const trust = await paddock(["trust", "--root", ws.dir], { cwd: ws.dir, env });
  assert.equal(trust.code, 0, trust.err);
  assert.match(trust.out, /MCP server "everything": /);
  const perms = await paddock(["perms", "--json", "--root", ws.dir], { cwd: ws.dir, env });
  assert.equal(perms.code, 0, perms.err);
  assert.ok(
    JSON.parse(perms.out).flags.some((f: string) =>
      f.startsWith("--allow-run=") && f.includes(Deno.execPath())
    ),
  );
  const tools = await paddock(["tools", "--quiet", "--root", ws.dir], { cwd: ws.dir, env });
  assert.equal(tools.code, 0, tools.err);
  assert.match(tools.out, /^mcp__everything__echo /m);
  assert.match(tools.out, /^ListMcpResources /m);
  const echo = await paddock(
    [
      "exec",
      "--quiet",
      "--root",
      ws.dir,
      "--allow",
      "mcp__everything",
      "mcp__everything__echo",
      '{"message":"hi from paddock"}',
    ],
    { cwd: ws.dir, env },
  );
  assert.equal(echo.code, 0, echo.err);
  assert.match(echo.out, /hi from paddock/);
});

Deno.test("Hook commands from the trusted settings file run around CLI calls, and perms grants their shell", async () => {
  await using ws = await tempWorkspace();
  // project files take effect once trusted: a private config folder holds the record
  await using home = await tempWorkspace("paddock-home-");
  const env = { XDG_CONFIG_HOME: home.dir };
  await ws.write(
    ".paddock/settings.json",
    JSON.stringify({
      hooks: {
        PreToolUse: [{
          matcher: "Hello",
          command: `grep -q '"Eve"' && { echo "Eve is not welcome" >&2; exit 2; }; exit 0`,
        }],
      },
    }),
  );
  assert.equal((await paddock(["trust"], { cwd: ws.dir, env })).code, 0);
  const denied = await paddock(["exec", "--quiet", "--tools", EXAMPLE, "Hello", '{"name":"Eve"}'], {
    cwd: ws.dir,
    env,
  });
  assert.equal(denied.code, 1);
  assert.match(denied.err, /Denied by a hook: Eve is not welcome/);
  const ok = await paddock(["exec", "--quiet", "--tools", EXAMPLE, "Hello", '{"name":"Bob"}'], {
    cwd: ws.dir,
    env,
  });
  assert.equal(ok.code, 0, ok.err);
  const perms = await paddock(["perms", "--json", "--disallowed-tools", "Bash,Grep,Glob,EnterWorktree"], {
    cwd: ws.dir,
    env,
  });
  const run = JSON.parse(perms.out).flags.find((f: string) => f.startsWith("--allow-run="));
  assert.ok(run?.slice("--allow-run=".length).split(",").includes("bash"), perms.out);
});

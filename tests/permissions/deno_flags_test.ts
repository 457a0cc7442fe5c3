import assert from "node:assert/strict";
import { denoRunLine, type FlagPolicy, toDenoFlags } from "../../src/permissions/mod.ts";
import { createRuntime } from "../../src/runtime/runtime.ts";

const table: Array<[string, FlagPolicy, string[]]> = [
  ["nothing enabled", { tools: [], roots: ["/w"] }, ["--no-prompt"]],
  ["in-memory tools need nothing", { tools: [{ name: "TodoWrite", sideEffect: "None" }], roots: ["/w"] }, [
    "--no-prompt",
  ]],
  ["read-only reads the roots", { tools: [{ name: "Read", sideEffect: "ReadOnly" }], roots: ["/w", "/x"] }, [
    "--no-prompt",
    "--allow-read=/w,/x",
  ]],
  ["grep adds its rg binary", {
    tools: [{ name: "Grep", sideEffect: "ReadOnly", programs: ["/opt/rg"] }],
    roots: ["/w"],
  }, ["--no-prompt", "--allow-read=/w", "--allow-run=/opt/rg"]],
  ["mutating reads and writes the roots", {
    tools: [{ name: "Edit", sideEffect: "Mutating" }],
    roots: ["/w"],
  }, [
    "--no-prompt",
    "--allow-read=/w",
    "--allow-write=/w",
  ]],
  ["execute runs bash and keeps its task ledger", {
    tools: [{ name: "Bash", sideEffect: "Execute" }],
    roots: ["/w"],
  }, [
    "--no-prompt",
    "--allow-read=/w/.paddock/tasks",
    "--allow-write=/w/.paddock/tasks",
    "--allow-run=bash",
  ]],
  ["the ledger folds into a writable root", {
    tools: [{ name: "Bash", sideEffect: "Execute" }, { name: "Edit", sideEffect: "Mutating" }],
    roots: ["/w"],
  }, ["--no-prompt", "--allow-read=/w", "--allow-write=/w", "--allow-run=bash"]],
  ["execute with the sandbox also runs bwrap", {
    tools: [{ name: "Bash", sideEffect: "Execute" }],
    roots: ["/w"],
    sandbox: true,
  }, [
    "--no-prompt",
    "--allow-read=/w/.paddock/tasks",
    "--allow-write=/w/.paddock/tasks",
    "--allow-run=bash,bwrap",
  ]],
  ["network reaches the allowed hosts only", {
    tools: [{ name: "WebFetch", sideEffect: "Network" }],
    roots: ["/w"],
    hosts: ["example.com", "127.0.0.1:8080"],
  }, ["--no-prompt", "--allow-net=example.com,127.0.0.1:8080"]],
  ["network with any host", {
    tools: [{ name: "WebFetch", sideEffect: "Network" }],
    roots: ["/w"],
    hosts: ["*"],
  }, [
    "--no-prompt",
    "--allow-net",
  ]],
  ["spawns reaches the model host", {
    tools: [{ name: "Agent", sideEffect: "Spawns" }],
    roots: ["/w"],
    modelHost: "api.example.com",
  }, ["--no-prompt", "--allow-net=api.example.com"]],
  [
    "blocking needs nothing",
    { tools: [{ name: "AskUserQuestion", sideEffect: "Blocking" }], roots: ["/w"] },
    [
      "--no-prompt",
    ],
  ],
  ["output folder, env and extra reads (those under a root folded in)", {
    tools: [{ name: "Read", sideEffect: "ReadOnly" }],
    roots: ["/w"],
    outputDir: "/tmp/paddock",
    env: ["HOME"],
    extraRead: ["/w/.paddock/settings.json", "/cfg/mcp.json"],
  }, [
    "--no-prompt",
    "--allow-read=/w,/tmp/paddock,/cfg/mcp.json",
    "--allow-write=/tmp/paddock",
    "--allow-env=HOME",
  ]],
];

for (const [name, policy, expected] of table) {
  Deno.test(`Deno flags: ${name}`, () => {
    assert.deepEqual(toDenoFlags(policy), expected);
  });
}

Deno.test("Deno flags refuse a path Deno's flag syntax cannot carry", () => {
  assert.throws(
    () => toDenoFlags({ tools: [{ name: "Read", sideEffect: "ReadOnly" }], roots: ["/a,b"] }),
    /cannot hold a comma/,
  );
});

Deno.test("The deno run line quotes what the shell would split", () => {
  const line = denoRunLine(
    { tools: [{ name: "Read", sideEffect: "ReadOnly" }], roots: ["/my work"] },
    "cli.ts",
    ["tools"],
  );
  assert.equal(line, "deno run --no-prompt '--allow-read=/my work' cli.ts tools");
});

Deno.test("With the sandbox on, the Execute class also gets bwrap and what the sandbox reads and writes to start", () => {
  const policy = {
    tools: [{ name: "Bash", sideEffect: "Execute" as const }],
    roots: ["/w"],
    sandbox: true,
    sandboxRead: ["/w", "/home/u/.ssh"],
    sandboxWrite: ["/w"],
  };
  const flags = toDenoFlags(policy);
  assert.ok(flags.includes("--allow-run=bash,bwrap"), flags.join(" "));
  assert.ok(flags.includes("--allow-read=/w,/home/u/.ssh"), flags.join(" "));
  assert.ok(flags.includes("--allow-write=/w"), flags.join(" "));
  // off: none of it
  assert.deepEqual(toDenoFlags({ ...policy, sandbox: false }), [
    "--no-prompt",
    "--allow-read=/w/.paddock/tasks",
    "--allow-write=/w/.paddock/tasks",
    "--allow-run=bash",
  ]);
});

Deno.test("A runtime's policy carries the sandbox's needs by default, and none with sandbox: false", async () => {
  const root = await Deno.realPath(await Deno.makeTempDir());
  try {
    await using boxed = createRuntime({ roots: [root], env: { HOME: "/home/ada" } });
    const on = boxed.policy();
    assert.equal(on.sandbox, true);
    if (Deno.build.os === "linux") {
      assert.ok(on.sandboxRead?.includes("/home/ada/.ssh") && on.sandboxWrite?.includes(root));
    }
    await using plain = createRuntime({ roots: [root], sandbox: false });
    assert.equal(plain.policy().sandbox, false);
    assert.equal(plain.policy().sandboxRead, undefined);
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});

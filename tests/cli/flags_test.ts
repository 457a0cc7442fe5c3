import assert from "node:assert/strict";
import type { CliIo } from "../../src/cli/command.ts";
import {
  commandFlags,
  type CommandName,
  COMMANDS,
  helpText,
  overviewText,
  parseFlags,
  RUNTIME_FLAGS,
} from "../../src/cli/flags.ts";
import { COMMAND_MODULES, main } from "../../src/cli/main.ts";
import { tempWorkspace } from "../_helpers/workspace.ts";

const NAMES = Object.keys(COMMANDS) as CommandName[];

function memoryIo(cwd: string): CliIo & { stdout: () => string; stderr: () => string } {
  const out: string[] = [];
  const err: string[] = [];
  return {
    stdout: () => out.join(""),
    stderr: () => err.join(""),
    out: (t) => out.push(t),
    err: (t) => err.push(t),
    stdin: new Blob([""]).stream(),
    isTerminal: false,
    env: {},
    cwd,
    signal: new AbortController().signal,
  };
}

Deno.test("Every flag of the table appears in its command's help, and the overview lists every command", () => {
  for (const name of NAMES) {
    const help = helpText(name);
    assert.match(help, new RegExp(`^Usage: paddock ${name}`));
    for (const [flag, spec] of Object.entries(commandFlags(name))) {
      const label = spec.value ? `--${flag} ${spec.value}` : `--${flag}`;
      assert.match(help, new RegExp(`^  ${label.replace(/[|[\]]/g, "\\$&")} +\\S`, "m"), `${name}: ${label}`);
    }
    assert.ok(
      overviewText().split("\n").some((l) =>
        l.startsWith(`  ${name} `) && l.endsWith(COMMANDS[name].summary)
      ),
    );
  }
  for (const name of ["tools", "perms", "exec", "run", "chat", "mcp"] as const) {
    for (const flag of Object.keys(RUNTIME_FLAGS)) {
      assert.ok(flag in commandFlags(name), `${name} takes --${flag}`);
    }
  }
});

Deno.test("Every command has a module, and --help prints the table's help without loading it", async () => {
  assert.deepEqual(Object.keys(COMMAND_MODULES).sort(), [...NAMES].sort());
  await using ws = await tempWorkspace();
  for (const name of NAMES) {
    const io = memoryIo(ws.dir);
    assert.equal(await main([name, "--help"], io), 0);
    assert.equal(io.stdout(), helpText(name) + "\n");
  }
  const io = memoryIo(ws.dir);
  assert.equal(await main(["--help"], io), 0);
  assert.equal(io.stdout(), overviewText() + "\n");
});

Deno.test("parseFlags gives strings, switches and repeated values as the table says", async () => {
  const { values, positionals } = await parseFlags("exec", [
    "Read",
    "--root",
    "/a",
    "--root=/b",
    "--sandbox",
    "--timeout",
    "5",
    '{"file_path":"/a/x"}',
  ]);
  assert.deepEqual(values.root, ["/a", "/b"]);
  assert.equal(values.sandbox, true);
  assert.equal(values.timeout, "5");
  assert.deepEqual(positionals, ["Read", '{"file_path":"/a/x"}']);
  assert.equal((await parseFlags("run", ["--no-stream", "hi"])).values["no-stream"], true);
});

Deno.test("An unknown command or flag exits 2 with a message naming it", async () => {
  await using ws = await tempWorkspace();
  const cases: Array<[string[], RegExp]> = [
    [["frobnicate"], /^paddock: unknown command "frobnicate": run 'paddock --help' for the commands\n$/],
    [["--frobnicate"], /^paddock: unknown option "--frobnicate"/],
    [
      ["exec", "--no-such-flag", "Read"],
      /^paddock exec: unknown flag "--no-such-flag"\nRun 'paddock exec --help'/,
    ],
    [["tools", "--rot", "/x"], /^paddock tools: unknown flag "--rot": did you mean "--root"\?/],
    [["exec", "Read", "--root"], /^paddock exec: flag "--root" needs a value <dir>/],
    [["tools", "--json=yes"], /^paddock tools: flag "--json" takes no value/],
    [["mcp", "extra"], /^paddock mcp: unexpected argument "extra"/],
  ];
  for (const [args, message] of cases) {
    const io = memoryIo(ws.dir);
    assert.equal(await main(args, io), 2, args.join(" "));
    assert.match(io.stderr(), message);
    assert.equal(io.stdout(), "");
  }
});

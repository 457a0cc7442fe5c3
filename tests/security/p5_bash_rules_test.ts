/**
 * THREATS.md P5 for Bash output redirections: a `>`, `>>` or `tee` target is a
 * write of that path, judged as an Edit of it. A target on a protected path
 * asks a person in every mode (bypassPermissions too) and is refused where no
 * one can be asked; one outside the workspace asks although a Bash rule
 * allowed the command. Only the user's own Edit rule naming the path approves.
 */
import assert from "node:assert/strict";
import { decideCall } from "../../src/permissions/decide.ts";
import type { PermissionMode } from "../../src/permissions/modes.ts";
import type { PermissionRules } from "../../src/permissions/rules.ts";
import { createRuntime } from "../../src/runtime/runtime.ts";
import { tempWorkspace } from "../_helpers/workspace.ts";

const BASH = { name: "Bash", sideEffect: "Execute" as const };
const ECHO: PermissionRules = { allow: ["Bash(echo:*)", "Bash(cat:*)"] };
const OUTSIDE = "/etc/paddock-test";

type Row = [name: string, command: string, written: string, rules: PermissionRules, mode: PermissionMode];
const REFUSED: Row[] = [
  [
    "> into .git/hooks under an echo rule",
    "echo x > .git/hooks/post-commit",
    ".git/hooks/post-commit",
    ECHO,
    "default",
  ],
  [">> onto .mcp.json under a cat rule", "cat a >> .mcp.json", ".mcp.json", ECHO, "default"],
  [
    "tee into .paddock/settings.json under an echo rule",
    "echo x | tee .paddock/settings.json",
    ".paddock/settings.json",
    { allow: ["Bash(echo:*)", "Bash(tee:*)"] },
    "default",
  ],
  ["> outside the workspace under an echo rule", `echo x > ${OUTSIDE}`, OUTSIDE, ECHO, "default"],
  [
    "> into .git/hooks in bypassPermissions",
    "echo x > .git/hooks/post-commit",
    ".git/hooks/post-commit",
    {},
    "bypassPermissions",
  ],
  [">> onto .mcp.json in bypassPermissions", "cat a >> .mcp.json", ".mcp.json", {}, "bypassPermissions"],
  [
    "tee into .paddock/settings.json in bypassPermissions",
    "echo x | tee .paddock/settings.json",
    ".paddock/settings.json",
    {},
    "bypassPermissions",
  ],
  [
    "> into .git/hooks after cd in bypassPermissions",
    "cd .git/hooks && echo x > post-commit",
    ".git/hooks/post-commit",
    {},
    "bypassPermissions",
  ],
  [
    "> to a run-time name in bypassPermissions",
    "f=.git/hooks/post-commit; echo x > $f",
    ".git/hooks/post-commit",
    {},
    "bypassPermissions",
  ],
  ["> outside the workspace under an echo rule in dontAsk", `echo x > ${OUTSIDE}`, OUTSIDE, ECHO, "dontAsk"],
];

for (const [name, command, , rules, mode] of REFUSED) {
  Deno.test(`P5 Bash writes: ${name} is refused without an approver`, async () => {
    const d = await decideCall({ tool: BASH, input: { command }, mode, rules, cwd: "/w", roots: ["/w"] });
    assert.equal(d.behavior, "deny", d.reason);
  });
}

Deno.test("P5 Bash writes: a protected-path redirection asks a person even when a hook allows", async () => {
  let asked = 0;
  const d = await decideCall({
    tool: BASH,
    input: { command: "echo x > .git/hooks/post-commit" },
    mode: "bypassPermissions",
    cwd: "/w",
    roots: ["/w"],
    hook: { decision: "allow" },
    approve: () => (asked++, Promise.resolve(false)),
  });
  assert.equal(d.behavior, "deny");
  assert.equal(asked, 1);
});

Deno.test("P5 Bash writes: a redirection inside the workspace runs under the rule", async () => {
  const d = await decideCall({
    tool: BASH,
    input: { command: "echo x > out.txt" },
    mode: "default",
    rules: ECHO,
    cwd: "/w",
    roots: ["/w"],
  });
  assert.equal(d.behavior, "allow", d.reason);
  const quiet = await decideCall({
    tool: BASH,
    input: { command: "echo x 2>/dev/null | tee /dev/null" },
    mode: "default",
    rules: { allow: ["Bash(echo:*)", "Bash(tee:*)"] },
    cwd: "/w",
    roots: ["/w"],
  });
  assert.equal(quiet.behavior, "allow", quiet.reason);
});

Deno.test("P5 Bash writes: only the user's own Edit rule for the path approves it", async () => {
  const hooks = { allow: ["Bash(echo:*)"], userAllow: ["Bash(echo:*)", "Edit(/w/.git/hooks/**)"] };
  const mine = await decideCall({
    tool: BASH,
    input: { command: "echo x > .git/hooks/post-commit" },
    mode: "default",
    rules: hooks,
    cwd: "/w",
    roots: ["/w"],
  });
  assert.equal(mine.behavior, "allow", mine.reason);
  const project = { allow: ["Bash(echo:*)", "Edit(/w/.git/hooks/**)"], userAllow: ["Bash(echo:*)"] };
  const theirs = await decideCall({
    tool: BASH,
    input: { command: "echo x > .git/hooks/post-commit" },
    mode: "default",
    rules: project,
    cwd: "/w",
    roots: ["/w"],
  });
  assert.equal(theirs.behavior, "deny", "a project's Edit rule does not count");
  const outside = { allow: ["Bash(echo:*)"], userAllow: ["Bash(echo:*)", `Edit(${OUTSIDE})`] };
  const out = await decideCall({
    tool: BASH,
    input: { command: `echo x > ${OUTSIDE}` },
    mode: "default",
    rules: outside,
    cwd: "/w",
    roots: ["/w"],
  });
  assert.equal(out.behavior, "allow", out.reason);
});

Deno.test("P5 Bash writes through the runtime: refused redirections leave no file; allowed ones write", async () => {
  for (const [name, command, written, rules, mode] of REFUSED) {
    await using ws = await tempWorkspace("paddock-p5-");
    await Deno.mkdir(ws.path(".git", "hooks"), { recursive: true });
    await Deno.writeTextFile(ws.path("a"), "from a\n");
    await using rt = createRuntime({ roots: [ws.dir], sandbox: false, rules, mode });
    const r = await rt.run("Bash", { command });
    assert.equal(r.error?.code, "permission_denied", `${name}: ${r.text}`);
    const target = written.startsWith("/") ? written : ws.path(written);
    await assert.rejects(Deno.stat(target), Deno.errors.NotFound, `${name}: "${target}" was written`);
  }
  await using ws = await tempWorkspace("paddock-p5-");
  await using rt = createRuntime({ roots: [ws.dir], sandbox: false, rules: ECHO });
  const r = await rt.run("Bash", { command: "echo x > out.txt" });
  assert.ok(r.ok, r.text);
  assert.equal(await Deno.readTextFile(ws.path("out.txt")), "x\n");
});

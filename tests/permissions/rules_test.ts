import assert from "node:assert/strict";
import { evaluateRules, parseRule, ruleMatches } from "../../src/permissions/mod.ts";
import { decideCall } from "../../src/permissions/decide.ts";
import { createRuntime, runTool, type ToolMiddleware, ToolRegistry } from "../../mod.ts";
import { denyListMiddleware } from "../../src/tool/mod.ts";
import { TOOL_ALIASES } from "../../src/tool/registry.ts";
import { echoTool } from "../_helpers/tools.ts";
import { tempWorkspace } from "../_helpers/workspace.ts";

Deno.test("Rules parse tool and content", () => {
  assert.deepEqual(parseRule("Bash"), { tool: "Bash" });
  assert.deepEqual(parseRule("Bash(git log:*)"), { tool: "Bash", content: "git log:*" });
});

const cases: Array<[string, string, unknown, boolean]> = [
  ["Bash", "Bash", { command: "rm -rf /" }, true],
  ["Bash(npm run:*)", "Bash", { command: "npm run test" }, true],
  ["Bash(npm run:*)", "Bash", { command: "npx evil" }, false],
  ["Bash(git status)", "Bash", { command: "git status" }, true],
  ["Bash(git status)", "Bash", { command: "git status; rm -rf /" }, false],
  ["Read(/etc/**)", "Read", { file_path: "/etc/ssh/sshd_config" }, true],
  ["Read(/etc/*)", "Read", { file_path: "/etc/ssh/sshd_config" }, false],
  ["Edit(src/**)", "Edit", { file_path: "/w/src/a/b.ts" }, true],
  ["Edit(src/**)", "Edit", { file_path: "/w/test/b.ts" }, false],
  ["WebFetch(domain:*.example.com)", "WebFetch", { url: "https://docs.example.com/x" }, true],
  ["WebFetch(domain:example.com)", "WebFetch", { url: "https://evil.com/?example.com" }, false],
  ["mcp__github", "mcp__github__create_issue", {}, true],
  ["mcp__github", "mcp__gitlab__create_issue", {}, false],
  ["mcp__github__*", "mcp__github__list", {}, true],
  ["Write", "Edit", { file_path: "/w/a" }, false],
];

for (const [rule, tool, input, expected] of cases) {
  Deno.test(`Rule ${rule} ${expected ? "matches" : "does not match"} ${tool} ${JSON.stringify(input)}`, () => {
    const rec = input as Record<string, string>;
    const value = rec.command ?? rec.file_path ?? rec.url;
    assert.equal(ruleMatches(rule, { tool, value, cwd: "/w" }), expected);
  });
}

Deno.test("Deny rules win over ask and allow", () => {
  const r = evaluateRules({ allow: ["Bash"], ask: ["Bash(git push:*)"], deny: ["Bash(rm:*)"] }, {
    tool: "Bash",
    value: "rm -rf x",
  });
  assert.equal(r?.behavior, "deny");
  assert.equal(
    evaluateRules({ allow: ["Bash"], ask: ["Bash(git push:*)"] }, { tool: "Bash", value: "git push" })
      ?.behavior,
    "ask",
  );
  assert.equal(evaluateRules({}, { tool: "Bash", value: "ls" }), undefined);
});

Deno.test("Deny lists match an alias by its canonical name, whichever name the list or the call uses", async () => {
  await using ws = await tempWorkspace();
  const reg = new ToolRegistry([echoTool("TaskStop", "Execute"), echoTool("Agent", "Execute")]);
  for (const [list, name] of [["TaskStop", "KillShell"], ["KillShell", "TaskStop"], ["Agent", "Task"]]) {
    let seen = "";
    const record: ToolMiddleware = (call, next) => {
      seen = call.name;
      return next(call);
    };
    const r = await runTool(reg, { name, input: { text: "x" } }, {
      session: ws.session,
      middleware: [record, denyListMiddleware([list])],
    });
    assert.equal(r.error?.code, "permission_denied", `${list} / ${name}`);
    assert.match(r.text, /on the deny list/);
    assert.equal(seen, TOOL_ALIASES[name] ?? name, "middleware sees the canonical name");
  }
});

Deno.test("A Bash deny rule holds through the runner for a command that needs the shell parser", async () => {
  const decided = await decideCall({
    tool: { name: "Bash", sideEffect: "Execute" },
    input: { command: "true && X=1 command /bin/r''m -rf build" },
    mode: "bypassPermissions",
    rules: { deny: ["Bash(rm:*)"] },
  });
  assert.equal(decided.behavior, "deny");
  assert.match(decided.reason, /Bash\(rm:\*\)/);
});

Deno.test("A Bash allow rule does not allow a chained command through the runner", async () => {
  const decided = await decideCall({
    tool: { name: "Bash", sideEffect: "Execute" },
    input: { command: "git status; touch x" },
    mode: "default",
    rules: { allow: ["Bash(git status:*)"] },
  });
  assert.equal(decided.behavior, "deny");
  assert.match(decided.reason, /no approver is set/);
  const alone = await decideCall({
    tool: { name: "Bash", sideEffect: "Execute" },
    input: { command: "git status --short" },
    mode: "default",
    rules: { allow: ["Bash(git status:*)"] },
  });
  assert.equal(alone.behavior, "allow");
});

Deno.test("A Bash deny rule stops a respelled rm end to end, and the file stays", async () => {
  await using ws = await tempWorkspace();
  await ws.write("keep.txt", "x");
  await using rt = createRuntime({ roots: [ws.dir], rules: { allow: ["Bash(true)"], deny: ["Bash(rm:*)"] } });
  for (
    const command of [
      "true && command /bin/r''m keep.txt",
      "find . -name keep.txt -delete",
      "bash -c 'rm keep.txt'",
    ]
  ) {
    const r = await rt.run("Bash", { command });
    assert.equal(r.error?.code, "permission_denied", command);
  }
  assert.equal(await Deno.readTextFile(ws.path("keep.txt")), "x");
});

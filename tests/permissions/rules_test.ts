import assert from "node:assert/strict";
import { evaluateRules, parseRule, ruleMatches } from "../../src/permissions/mod.ts";

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

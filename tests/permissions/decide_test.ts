import assert from "node:assert/strict";
import { decidePermission, type DecisionInput, type SideEffect } from "../../src/permissions/mod.ts";
import {
  type ApprovalQuestion,
  type CallDecisionInput,
  decideCall,
  type DecisionTool,
} from "../../src/permissions/decide.ts";

type Row = [string, Partial<DecisionInput> & { sideEffect: SideEffect }, "allow" | "deny" | "ask"];

const rows: Row[] = [
  ["read-only runs in default mode", { sideEffect: "ReadOnly" }, "allow"],
  ["in-memory runs in default mode", { sideEffect: "None" }, "allow"],
  ["mutating asks in default mode", { sideEffect: "Mutating" }, "ask"],
  ["execute asks in default mode", { sideEffect: "Execute" }, "ask"],
  ["network asks in default mode", { sideEffect: "Network" }, "ask"],
  [
    "a sub-agent starts without asking (its own calls are decided one by one)",
    { sideEffect: "Spawns" },
    "allow",
  ],
  ["preset none (always confirm) asks before a sub-agent", { sideEffect: "Spawns", preset: "none" }, "ask"],
  ["blocking runs (a person answers anyway)", { sideEffect: "Blocking" }, "allow"],
  ["acceptEdits allows mutating", { sideEffect: "Mutating", mode: "acceptEdits" }, "allow"],
  ["acceptEdits still asks for execute", { sideEffect: "Execute", mode: "acceptEdits" }, "ask"],
  ["plan refuses mutating", { sideEffect: "Mutating", mode: "plan" }, "deny"],
  ["plan refuses execute", { sideEffect: "Execute", mode: "plan" }, "deny"],
  ["plan refuses network", { sideEffect: "Network", mode: "plan" }, "deny"],
  ["plan allows read-only", { sideEffect: "ReadOnly", mode: "plan" }, "allow"],
  [
    "plan refuses even an allow rule",
    { sideEffect: "Mutating", mode: "plan", rules: { allow: ["T"] } },
    "deny",
  ],
  ["bypass allows execute", { sideEffect: "Execute", mode: "bypassPermissions" }, "allow"],
  ["bypass still honours deny rules", {
    sideEffect: "Execute",
    mode: "bypassPermissions",
    rules: { deny: ["T"] },
  }, "deny"],
  ["dontAsk turns ask into deny", { sideEffect: "Execute", mode: "dontAsk" }, "deny"],
  ["dontAsk keeps allow rules", { sideEffect: "Execute", mode: "dontAsk", rules: { allow: ["T"] } }, "allow"],
  ["allowed set skips asking", { sideEffect: "Execute", allowedTools: new Set(["T"]) }, "allow"],
  ["ask rule asks for a read-only tool", { sideEffect: "ReadOnly", rules: { ask: ["T"] } }, "ask"],
  ["deny wins over allow", { sideEffect: "ReadOnly", rules: { allow: ["T"], deny: ["T"] } }, "deny"],
  ["preset all (auto-approve everything) never asks", { sideEffect: "Execute", preset: "all" }, "allow"],
  ["preset none (always confirm) asks for read-only", { sideEffect: "ReadOnly", preset: "none" }, "ask"],
  ["preset none lets in-memory run", { sideEffect: "None", preset: "none" }, "allow"],
];

for (const [name, partial, expected] of rows) {
  Deno.test(`Permission decision: ${name}`, () => {
    const d = decidePermission({ tool: "T", input: {}, mode: "default", ...partial });
    assert.equal(d.behavior, expected, d.reason);
    assert.ok(d.reason.length > 0);
  });
}

type Verdict = { behavior: "allow" | "deny"; reason: string };
type CallRow = [string, Partial<CallDecisionInput>, Verdict["behavior"], RegExp];

const edit: DecisionTool = { name: "Edit", sideEffect: "Mutating" };
const look: DecisionTool = { name: "Look", sideEffect: "ReadOnly" };
const yes = () => Promise.resolve(true as const);

const callRows: CallRow[] = [
  [
    "a hook's deny wins over an allow rule",
    {
      hook: { decision: "deny", reason: "no" },
      rules: { allow: ["Edit"] },
    },
    "deny",
    /^Denied by a hook: no$/,
  ],
  [
    "a hook's deny wins over bypass mode",
    {
      hook: { decision: "deny" },
      mode: "bypassPermissions",
    },
    "deny",
    /^Denied by a hook$/,
  ],
  ["a hook's allow skips the approver", { hook: { decision: "allow" } }, "allow", /./],
  [
    "a hook's allow does not lift a deny rule",
    {
      hook: { decision: "allow" },
      rules: { deny: ["Edit"] },
    },
    "deny",
    /^Denied by rule "Edit"$/,
  ],
  [
    "a hook's allow does not lift plan mode",
    {
      hook: { decision: "allow" },
      mode: "plan",
    },
    "deny",
    /cannot run in plan mode/,
  ],
  [
    "a hook's ask asks even for a read-only call",
    {
      tool: look,
      hook: { decision: "ask" },
    },
    "deny",
    /run without asking, and no approver is set/,
  ],
  [
    "dontAsk mode refuses a hook's ask",
    {
      tool: look,
      hook: { decision: "ask" },
      mode: "dontAsk",
      approve: yes,
    },
    "deny",
    /, and dontAsk mode refuses it$/,
  ],
  [
    "an ask without an approver is refused, naming the ways to allow it",
    {},
    "deny",
    /^"Edit" is Mutating and needs approval, and no approver is set: allow it with a rule/,
  ],
  ["the approver's yes runs the call", { approve: yes }, "allow", /approved "Edit"/],
  [
    "the approver's no refuses the call",
    { approve: () => Promise.resolve(false) },
    "deny",
    /^The user denied "Edit"$/,
  ],
  [
    "the approver's reason is passed on",
    {
      approve: () => Promise.resolve({ behavior: "deny" as const, reason: "not today" }),
    },
    "deny",
    /^The user denied "Edit": not today$/,
  ],
  [
    "an approver that fails refuses the call",
    {
      approve: () => Promise.reject(new Error("no terminal")),
    },
    "deny",
    /^The approver failed: no terminal$/,
  ],
  [
    "a read of a tool whose class depends on the input runs without asking",
    {
      tool: {
        ...edit,
        sideEffectOf: (i: { value?: string }) => i.value === undefined ? "ReadOnly" : "Mutating",
      },
    },
    "allow",
    /ReadOnly tools run without asking/,
  ],
  [
    "a class that cannot be told from the input falls back to the tool's",
    {
      tool: {
        ...edit,
        sideEffectOf: () => {
          throw new Error("bad input");
        },
      },
    },
    "deny",
    /is Mutating and needs approval/,
  ],
];

for (const [name, partial, expected, reason] of callRows) {
  Deno.test(`Call decision: ${name}`, async () => {
    const d = await decideCall({ tool: edit, input: {}, mode: "default", ...partial });
    assert.equal(d.behavior, expected, d.reason);
    assert.match(d.reason, reason);
  });
}

Deno.test("Call decision: the approver is asked with the call's own class and the policy's reason", async () => {
  const asked: ApprovalQuestion[] = [];
  const config: DecisionTool = {
    name: "Config",
    sideEffect: "Mutating",
    sideEffectOf: (i: { value?: string }) => (i.value === undefined ? "ReadOnly" : "Mutating"),
  };
  const approve = (q: ApprovalQuestion) => (asked.push(q), Promise.resolve(true));
  await decideCall({ tool: config, input: {}, mode: "default", approve });
  assert.deepEqual(asked, []);
  await decideCall({ tool: config, input: { value: "x" }, mode: "default", approve });
  assert.deepEqual(asked, [{ sideEffect: "Mutating", reason: '"Config" is Mutating and needs approval' }]);
});

Deno.test("Protected paths: no mode, preset or allowed set approves them; a hook's allow still asks", async () => {
  const root = await Deno.realPath(await Deno.makeTempDir());
  try {
    const write = { name: "Write", sideEffect: "Mutating" as const };
    const base = { tool: write, mode: "bypassPermissions" as const, cwd: root, roots: [root] };
    const file_path = `${root}/.claude/settings.json`;
    const alone = await decideCall({ ...base, input: { file_path } });
    assert.equal(alone.behavior, "deny");
    assert.match(alone.reason, /protected path ".*\/\.claude"/);
    const hooked = await decideCall({
      ...base,
      input: { file_path },
      hook: { decision: "allow" },
      allowedTools: new Set(["Write"]),
    });
    assert.equal(hooked.behavior, "deny", "a hook's allow does not stand in for the person");
    const policy = decidePermission({
      tool: "Write",
      sideEffect: "Mutating",
      input: { file_path: `${root}/.gitmodules` },
      mode: "acceptEdits",
      preset: "all",
      roots: [root],
    });
    assert.equal(policy.behavior, "ask");
    // an ordinary file under a protected-looking name is not protected
    const plain = decidePermission({
      tool: "Write",
      sideEffect: "Mutating",
      input: { file_path: `${root}/docs/.vscode-notes.md` },
      mode: "acceptEdits",
      roots: [root],
    });
    assert.equal(plain.behavior, "allow");
    // EnterWorktree's checkouts under .paddock/worktrees are workspaces of their own
    const tree = decidePermission({
      tool: "Write",
      sideEffect: "Mutating",
      input: { file_path: `${root}/.paddock/worktrees/w1/src/a.ts` },
      mode: "acceptEdits",
      roots: [root],
    });
    assert.equal(tree.behavior, "allow");
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});

Deno.test("A Bash call leaving the sandbox asks in every mode, and is refused in dontAsk or without an approver", async () => {
  const bash = { name: "Bash", sideEffect: "Execute" as const };
  const input = { command: "ls", dangerouslyDisableSandbox: true };
  for (const mode of ["default", "acceptEdits", "bypassPermissions"] as const) {
    const d = decidePermission({
      tool: "Bash",
      sideEffect: "Execute",
      input,
      mode,
      rules: { allow: ["Bash"] },
    });
    assert.equal(d.behavior, "ask", mode);
  }
  assert.equal((await decideCall({ tool: bash, input, mode: "bypassPermissions" })).behavior, "deny");
  const dontAsk = await decideCall({
    tool: bash,
    input,
    mode: "dontAsk",
    approve: () => Promise.resolve(true),
  });
  assert.equal(dontAsk.behavior, "deny");
  const yes = await decideCall({
    tool: bash,
    input,
    mode: "bypassPermissions",
    approve: () => Promise.resolve(true),
  });
  assert.equal(yes.behavior, "allow");
  const denyRule = decidePermission({
    tool: "Bash",
    sideEffect: "Execute",
    input,
    mode: "default",
    rules: { deny: ["Bash(ls:*)"] },
  });
  assert.equal(denyRule.behavior, "deny", "deny rules still come first");
});

/**
 * The confirmation presets with the PRD's meaning (seed 002, FR5): `none` =
 * always confirm, `safe` = auto-approve reads (the default), `all` =
 * auto-approve everything. One row per preset × side-effect class × mode, and
 * the calls no preset approves.
 */
import assert from "node:assert/strict";
import { decidePermission, type DecisionInput } from "../../src/permissions/decide.ts";
import { type ConfirmationPreset, PERMISSION_MODES } from "../../src/permissions/modes.ts";
import { loadBashJudge } from "../../src/permissions/rules.ts";
import type { SideEffect } from "../../src/permissions/side_effect.ts";

type Letter = "allow" | "ask" | "deny";
const A = "allow", Q = "ask", D = "deny";

/** Expected decision per class, in the order of PERMISSION_MODES: default, acceptEdits, plan, bypassPermissions, dontAsk. */
const TABLE: Record<ConfirmationPreset, Record<SideEffect, readonly Letter[]>> = {
  none: {
    None: [A, A, A, A, A],
    ReadOnly: [Q, Q, Q, A, D],
    Mutating: [Q, A, D, A, D],
    Execute: [Q, Q, D, A, D],
    Network: [Q, Q, D, A, D],
    Blocking: [A, A, A, A, A],
    Spawns: [Q, Q, Q, A, D],
  },
  safe: {
    None: [A, A, A, A, A],
    ReadOnly: [A, A, A, A, A],
    Mutating: [Q, A, D, A, D],
    Execute: [Q, Q, D, A, D],
    Network: [Q, Q, D, A, D],
    Blocking: [A, A, A, A, A],
    Spawns: [A, A, A, A, A],
  },
  all: {
    None: [A, A, A, A, A],
    ReadOnly: [A, A, A, A, A],
    Mutating: [A, A, D, A, A],
    Execute: [A, A, D, A, A],
    Network: [A, A, D, A, A],
    Blocking: [A, A, A, A, A],
    Spawns: [A, A, A, A, A],
  },
};

assert.deepEqual([...PERMISSION_MODES], ["default", "acceptEdits", "plan", "bypassPermissions", "dontAsk"]);

for (
  const [preset, classes] of Object.entries(TABLE) as [ConfirmationPreset, Record<SideEffect, Letter[]>][]
) {
  for (const [sideEffect, expected] of Object.entries(classes) as [SideEffect, Letter[]][]) {
    PERMISSION_MODES.forEach((mode, i) => {
      Deno.test(`Preset ${preset}: ${sideEffect} in ${mode} mode → ${expected[i]}`, () => {
        const d = decidePermission({ tool: "T", sideEffect, input: {}, mode, preset });
        assert.equal(d.behavior, expected[i], d.reason);
      });
    });
  }
}

Deno.test("Without a preset the decision is safe's: reads run, the rest asks", () => {
  for (const sideEffect of Object.keys(TABLE.safe) as SideEffect[]) {
    const d = decidePermission({ tool: "T", sideEffect, input: {}, mode: "default" });
    assert.equal(d.behavior, TABLE.safe[sideEffect][0], `${sideEffect}: ${d.reason}`);
  }
});

type Row = [string, Partial<DecisionInput> & Pick<DecisionInput, "tool" | "sideEffect" | "input">, Letter];
const ROOT = "/w";
const ALL_CANNOT: Row[] = [
  ["a deny rule still denies", {
    tool: "Bash",
    sideEffect: "Execute",
    input: { command: "rm x" },
    rules: { deny: ["Bash(rm:*)"] },
  }, D],
  ["an ask rule still asks", {
    tool: "Bash",
    sideEffect: "Execute",
    input: { command: "ls" },
    rules: { ask: ["Bash(ls:*)"] },
  }, Q],
  ["an ask rule on a read still asks", {
    tool: "Read",
    sideEffect: "ReadOnly",
    input: { file_path: "/w/a" },
    rules: { ask: ["Read"] },
  }, Q],
  ["a write to a protected path asks", {
    tool: "Write",
    sideEffect: "Mutating",
    input: { file_path: "/w/.git/config" },
  }, Q],
  ["an Edit of .paddock/settings.json asks", {
    tool: "Edit",
    sideEffect: "Mutating",
    input: { file_path: "/w/.paddock/settings.json" },
  }, Q],
  ["dangerouslyDisableSandbox asks", {
    tool: "Bash",
    sideEffect: "Execute",
    input: { command: "ls", dangerouslyDisableSandbox: true },
  }, Q],
  ["a Bash redirection into .git/hooks asks", {
    tool: "Bash",
    sideEffect: "Execute",
    input: { command: "echo x > .git/hooks/post-commit" },
  }, Q],
  ["a protected-path write in dontAsk is denied", {
    tool: "Write",
    sideEffect: "Mutating",
    input: { file_path: "/w/.mcp.json" },
    mode: "dontAsk",
  }, D],
  ["an ordinary write is approved", {
    tool: "Write",
    sideEffect: "Mutating",
    input: { file_path: "/w/src/a.ts" },
  }, A],
];
for (const [name, call, expected] of ALL_CANNOT) {
  Deno.test(`Preset all cannot approve everything: ${name}`, async () => {
    if (call.tool === "Bash") {
      await loadBashJudge((call.input as { command: string }).command, call.rules);
    }
    const d = decidePermission({ mode: "default", cwd: ROOT, roots: [ROOT], preset: "all", ...call });
    assert.equal(d.behavior, expected, d.reason);
  });
}

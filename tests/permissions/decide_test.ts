import assert from "node:assert/strict";
import { decidePermission, type DecisionInput, type SideEffect } from "../../mod.ts";

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
  ["preset all asks before a sub-agent", { sideEffect: "Spawns", preset: "all" }, "ask"],
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
  ["preset none never asks", { sideEffect: "Execute", preset: "none" }, "allow"],
  ["preset all asks for read-only", { sideEffect: "ReadOnly", preset: "all" }, "ask"],
  ["preset all lets in-memory run", { sideEffect: "None", preset: "all" }, "allow"],
];

for (const [name, partial, expected] of rows) {
  Deno.test(`Permission decision: ${name}`, () => {
    const d = decidePermission({ tool: "T", input: {}, mode: "default", ...partial });
    assert.equal(d.behavior, expected, d.reason);
    assert.ok(d.reason.length > 0);
  });
}

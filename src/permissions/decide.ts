/**
 * The permission decision for one call, as a pure function of the tool, its
 * input, the mode, the rules and the preset. The runner asks the approver
 * only when this says `ask`.
 *
 * @module
 */
import { isReadOnly, type SideEffect } from "../tool/define_tool.ts";
import { type ConfirmationPreset, type PermissionMode, PLAN_MODE_BLOCKED, presetAsks } from "./modes.ts";
import { evaluateRules, type PermissionRules, ruleSubject } from "./rules.ts";

/** What decides a call. */
export interface DecisionInput {
  /** Canonical tool name. */
  tool: string;
  /** The tool's side-effect class. */
  sideEffect: SideEffect;
  /** The validated input. */
  input: unknown;
  /** The session's mode. */
  mode: PermissionMode;
  /** Allow, deny and ask rules. */
  rules?: PermissionRules;
  /** Which classes ask in default mode. Default `safe`. */
  preset?: ConfirmationPreset;
  /** Tools allowed without asking (the registry's allowed set). */
  allowedTools?: ReadonlySet<string>;
  /** The session cwd, for relative path rules. */
  cwd?: string;
}

/** The outcome: run, refuse, or ask the approver. */
export interface Decision {
  /** What to do. */
  behavior: "allow" | "deny" | "ask";
  /** Why, in words for the model or the person asked. */
  reason: string;
}

/**
 * Decides a call. Order: deny rules, plan mode, bypass, ask rules, allow
 * rules and the allowed set, read-only and in-memory classes, acceptEdits,
 * the preset, then dontAsk turns the remaining asks into denials.
 *
 * @example
 * ```ts
 * import { decidePermission } from "./decide.ts";
 * const d = decidePermission({ tool: "Edit", sideEffect: "Mutating", input: {}, mode: "plan" });
 * console.assert(d.behavior === "deny");
 * ```
 */
export function decidePermission(d: DecisionInput): Decision {
  const subject = ruleSubject(d.tool, d.input, d.cwd);
  const matched = d.rules ? evaluateRules(d.rules, subject) : undefined;
  if (matched?.behavior === "deny") {
    return { behavior: "deny", reason: `Denied by rule "${matched.rule}"` };
  }
  if (d.mode === "plan" && PLAN_MODE_BLOCKED.includes(d.sideEffect)) {
    return {
      behavior: "deny",
      reason:
        `"${d.tool}" cannot run in plan mode: it is ${d.sideEffect}; present the plan with ExitPlanMode first`,
    };
  }
  if (d.mode === "bypassPermissions") return { behavior: "allow", reason: "bypassPermissions mode" };
  let ask: Decision | undefined;
  if (matched?.behavior === "ask") {
    ask = { behavior: "ask", reason: `Rule "${matched.rule}" asks for confirmation` };
  } else if (matched?.behavior === "allow") {
    return { behavior: "allow", reason: `Allowed by rule "${matched.rule}"` };
  } else if (d.allowedTools?.has(d.tool)) {
    return { behavior: "allow", reason: `"${d.tool}" is in the allowed set` };
  } else if (d.sideEffect === "Blocking") {
    return { behavior: "allow", reason: "waits for a person anyway" };
  } else if (isReadOnly(d.sideEffect) && (d.preset ?? "safe") !== "all") {
    return { behavior: "allow", reason: `${d.sideEffect} tools run without asking` };
  } else if (d.mode === "acceptEdits" && d.sideEffect === "Mutating") {
    return { behavior: "allow", reason: "acceptEdits mode" };
  } else if (!presetAsks(d.preset ?? "safe", d.sideEffect)) {
    return { behavior: "allow", reason: `preset "${d.preset ?? "safe"}" does not ask for ${d.sideEffect}` };
  } else {
    ask = { behavior: "ask", reason: `"${d.tool}" is ${d.sideEffect} and needs approval` };
  }
  if (d.mode === "dontAsk") {
    return {
      behavior: "deny",
      reason: `${ask.reason}, and dontAsk mode refuses anything not allowed beforehand`,
    };
  }
  return ask;
}

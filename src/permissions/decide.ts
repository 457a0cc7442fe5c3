/**
 * Every permission decision in one place. {@link decidePermission} is the
 * policy as a pure function of the call's class, its input, the mode, the
 * rules, the preset and the allowed set; {@link decideCall} is the one call
 * the runner makes: it adds the per-call class, the PreToolUse hooks'
 * decision, dontAsk mode and the approver's answer, and says allow or deny
 * with the reason.
 *
 * @module
 */
import { isAbsolute, relative, resolve } from "node:path";
import { describeError } from "../errors.ts";
import { isReadOnly, isSideEffect, type SideEffect } from "./side_effect.ts";
import {
  type ConfirmationPreset,
  DEFAULT_PRESET,
  type PermissionMode,
  PLAN_MODE_BLOCKED,
  presetAsks,
} from "./modes.ts";
import {
  bashWrites,
  evaluateRules,
  loadBashJudge,
  parseRule,
  type PermissionRules,
  ruleMatches,
  ruleSubject,
} from "./rules.ts";
import { protectedPathOf, realPathOf } from "./protected_paths.ts";
import { DYNAMIC } from "./shell.ts";

/**
 * What decides a call.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { decidePermission, type DecisionInput } from "./decide.ts";
 * const call: DecisionInput = {
 *   tool: "Write",
 *   sideEffect: "Mutating",
 *   input: { file_path: "/w/a.txt" },
 *   mode: "acceptEdits",
 *   cwd: "/w",
 * };
 * assert.equal(decidePermission(call).behavior, "allow");
 * ```
 */
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
  /**
   * Which classes ask once nothing else decided: `none` always confirms, `safe` auto-approves
   * reads, `all` auto-approves everything (see `CONFIRMATION_PRESETS`). Default `safe`.
   */
  preset?: ConfirmationPreset;
  /** Tools allowed without asking (the registry's allowed set). */
  allowedTools?: ReadonlySet<string>;
  /** The session cwd, for relative path rules. */
  cwd?: string;
  /** The workspace roots, under which protected paths are found. Default: none (found anywhere). */
  roots?: readonly string[];
}

/**
 * The outcome: run, refuse, or ask the approver.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { decidePermission, type Decision } from "./decide.ts";
 * const decision: Decision = decidePermission({
 *   tool: "Bash",
 *   sideEffect: "Execute",
 *   input: {},
 *   mode: "default",
 * });
 * assert.equal(decision.behavior, "ask");
 * ```
 */
export interface Decision {
  /** What to do. */
  behavior: "allow" | "deny" | "ask";
  /** Why, in words for the model or the person asked. */
  reason: string;
  /**
   * Only a person may approve it (a protected path, a command leaving the sandbox): a hook's
   * `allow` does not skip the approver. Default false.
   */
  personOnly?: boolean;
}

/**
 * Decides a call. Order: deny rules, plan mode, a Bash call leaving the
 * sandbox and a write to a protected path (both ask in every mode, the latter
 * unless the user's own rule allows that path; a Bash output redirection or
 * `tee` target counts as an Edit of its path, and one named only at run time
 * as a protected one), bypass, ask rules, a Bash write outside the workspace
 * roots (asks unless the user's own Edit rule names the path), allow rules and
 * the allowed set, read-only and in-memory classes, acceptEdits, the preset,
 * then dontAsk turns the remaining asks into denials. Reads the file system
 * only to resolve the symbolic links of a path being written.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { decidePermission } from "./decide.ts";
 * const d = decidePermission({ tool: "Edit", sideEffect: "Mutating", input: {}, mode: "plan" });
 * assert.equal(d.behavior, "deny");
 * ```
 */
export function decidePermission(d: DecisionInput): Decision {
  // a Bash command's writes are judged below as Edits of their paths (against the roots), not by its rules
  const subject = ruleSubject(d.tool, d.input, d.tool === "Bash" ? undefined : d.cwd);
  const matched = d.rules ? evaluateRules(d.rules, subject) : undefined;
  if (matched?.behavior === "deny") {
    return { behavior: "deny", reason: matched.reason ?? `Denied by rule "${matched.rule}"` };
  }
  if (d.mode === "plan" && PLAN_MODE_BLOCKED.includes(d.sideEffect)) {
    return {
      behavior: "deny",
      reason:
        `"${d.tool}" cannot run in plan mode: it is ${d.sideEffect}; present the plan with ExitPlanMode first`,
    };
  }
  const personal = personOnly(d, matched?.behavior === "ask" ? matched.rule : undefined);
  if (personal) {
    if (personal.behavior === "ask" && d.mode === "dontAsk") {
      return { behavior: "deny", reason: `${personal.reason}, and dontAsk mode refuses it` };
    }
    return personal;
  }
  if (d.mode === "bypassPermissions") return { behavior: "allow", reason: "bypassPermissions mode" };
  const preset = d.preset ?? DEFAULT_PRESET;
  let ask: Decision | undefined;
  const outside = d.tool === "Bash" ? bashWriteOutside(d) : undefined;
  if (matched?.behavior === "ask") {
    ask = { behavior: "ask", reason: `Rule "${matched.rule}" asks for confirmation` };
  } else if (outside) {
    ask = outside;
  } else if (matched?.behavior === "allow") {
    return { behavior: "allow", reason: `Allowed by rule "${matched.rule}"` };
  } else if (d.allowedTools?.has(d.tool)) {
    return { behavior: "allow", reason: `"${d.tool}" is in the allowed set` };
  } else if (d.sideEffect === "Blocking") {
    return { behavior: "allow", reason: "waits for a person anyway" };
  } else if (isReadOnly(d.sideEffect) && preset !== "none") {
    return { behavior: "allow", reason: `${d.sideEffect} tools run without asking` };
  } else if (d.mode === "acceptEdits" && d.sideEffect === "Mutating") {
    return { behavior: "allow", reason: "acceptEdits mode" };
  } else if (!presetAsks(preset, d.sideEffect)) {
    return { behavior: "allow", reason: `preset "${preset}" does not ask for ${d.sideEffect}` };
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

/** The field with which a Bash call asks to run outside the OS sandbox (`tools/bash/bash.ts`). */
const DISABLE_SANDBOX_FIELD = "dangerouslyDisableSandbox";

/**
 * The calls no mode, preset, allowed set or hook approves, only a person:
 * a command that asks to leave the OS sandbox (the tool refuses the field
 * unless the user allows unsandboxed commands), and a Mutating call whose path
 * is or lies in a protected path (unless one of the user's own allow rules
 * names it, and no ask rule matched).
 */
function personOnly(d: DecisionInput, askRule: string | undefined): Decision | undefined {
  const input = (d.input ?? {}) as Record<string, unknown>;
  if (input[DISABLE_SANDBOX_FIELD] === true) {
    return {
      behavior: "ask",
      personOnly: true,
      reason:
        `"${d.tool}" asks to run outside the OS sandbox (${DISABLE_SANDBOX_FIELD}): only a person may approve that, in every mode`,
    };
  }
  if (d.tool === "Bash") return bashWriteProtected(d, askRule);
  if (d.sideEffect !== "Mutating") return undefined;
  const written = input.file_path ?? input.notebook_path ?? input.path;
  if (typeof written !== "string" || written === "") return undefined;
  const target = isAbsolute(written) ? written : resolve(d.cwd ?? "/", written);
  const guarded = protectedPathOf(target, d.roots ?? []);
  if (guarded === undefined) return undefined;
  const real = realPathOf(target) ?? target;
  const userRule = userRuleFor(d, d.tool, [target, real]);
  if (userRule !== undefined && askRule === undefined) {
    return {
      behavior: "allow",
      reason: `Allowed by the user's rule "${userRule}" for the protected path "${guarded}"`,
    };
  }
  return protectedAsk(d.tool, guarded, `e.g. --allow '${d.tool}(${real})'`);
}

function protectedAsk(tool: string, guarded: string, example: string): Decision {
  return {
    behavior: "ask",
    personOnly: true,
    reason:
      `"${tool}" would change the protected path "${guarded}", which can make a later run execute code: ` +
      `no permission mode approves that; approve it when asked, or allow it with your own rule, ` +
      `${example} (a project's rules do not count)`,
  };
}

/** The user's own allow rule for `ruleTool` that names one of `paths` (`Edit(/w/.vscode/**)`, not a bare `Edit`). */
function userRuleFor(d: DecisionInput, ruleTool: string, paths: readonly string[]): string | undefined {
  const userRules = d.rules?.userAllow ?? d.rules?.allow ?? [];
  const namesPath = (rule: string) => !["", "*", undefined].includes(parseRule(rule).content);
  return userRules.find((rule) =>
    namesPath(rule) && paths.some((value) => ruleMatches(rule, { tool: ruleTool, value, cwd: d.cwd }))
  );
}

/**
 * A Bash call's output redirection and `tee` targets, resolved against the
 * cwd; `undefined` stands for one only the run names (`> "$f"`, after `cd`,
 * or a command that cannot be analysed yet writes with `>` or `tee`).
 */
function bashTargets(d: DecisionInput): (string | undefined)[] {
  const command = (d.input as { command?: unknown } | undefined)?.command;
  if (typeof command !== "string") return [];
  const writes = bashWrites(command);
  if (writes === undefined) return />|\btee\b/.test(command) ? [undefined] : [];
  return writes.map((w) =>
    w.includes(DYNAMIC) || w.startsWith("~") || w === "" ? undefined : resolve(d.cwd ?? "/", w)
  );
}

/**
 * A Bash call that writes a protected path, or a file named only at run time
 * (which might be one), asks a person in every mode, unless the user's own
 * Edit rule names each protected path written and no ask rule matched.
 */
function bashWriteProtected(d: DecisionInput, askRule: string | undefined): Decision | undefined {
  for (const target of bashTargets(d)) {
    if (target === undefined) {
      return {
        behavior: "ask",
        personOnly: true,
        reason:
          `"Bash" writes to a file named only at run time, which may be a protected path: only a person may approve that`,
      };
    }
    const guarded = protectedPathOf(target, d.roots ?? []);
    if (guarded === undefined) continue;
    const real = realPathOf(target) ?? target;
    if (askRule === undefined && userRuleFor(d, "Edit", [target, real]) !== undefined) continue;
    return protectedAsk("Bash", guarded, `e.g. --allow 'Edit(${real})'`);
  }
  return undefined;
}

/** A Bash call that writes outside the workspace roots asks, as an Edit of that path would, unless the user's own Edit rule names it. */
function bashWriteOutside(d: DecisionInput): Decision | undefined {
  const roots = d.roots?.length ? d.roots : d.cwd ? [d.cwd] : [];
  if (roots.length === 0) return undefined;
  const bases = roots.flatMap((r) => [resolve(r), realPathOf(resolve(r)) ?? r]);
  const inside = (p: string) =>
    bases.some((base) => {
      const rel = relative(base, p);
      return rel !== ".." && !rel.startsWith("../") && !isAbsolute(rel);
    });
  for (const target of bashTargets(d)) {
    if (target === undefined) continue; // asked already, as a possible protected path
    const real = realPathOf(target) ?? target;
    if (inside(target) && inside(real)) continue;
    if (userRuleFor(d, "Edit", [target, real]) !== undefined) continue;
    return {
      behavior: "ask",
      reason: `"Bash" writes "${target}" outside the workspace: as an Edit of that path it needs approval, ` +
        `or your own rule, e.g. --allow 'Edit(${real})'`,
    };
  }
  return undefined;
}

/** What the PreToolUse hooks decided about a call, as data: the last decision, or the first deny. */
export interface HookVerdict {
  /** `deny` refuses the call; `allow` skips the approver (deny rules and plan mode still apply); `ask` forces it. */
  decision: "allow" | "deny" | "ask";
  /** Why, shown to the model on deny. */
  reason?: string;
}

/**
 * The approver's answer: yes or no, or a behaviour with the reason.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { type ApprovalAnswer, createRuntime } from "../../mod.ts";
 * const refuse: ApprovalAnswer = { behavior: "deny", reason: "Not during the demo" };
 * await using rt = createRuntime({ roots: [Deno.cwd()], approver: () => Promise.resolve(refuse) });
 * const r = await rt.run("Bash", { command: "ls" });
 * assert.equal(r.error?.code, "permission_denied");
 * assert.match(r.text, /Not during the demo/);
 * ```
 */
export type ApprovalAnswer = boolean | { behavior: "allow" | "deny"; reason?: string };

/** What the approver is told when a call asks. */
export interface ApprovalQuestion {
  /** The call's side-effect class. */
  sideEffect: SideEffect;
  /** Why approval is needed. */
  reason: string;
}

/** The parts of a tool the decision reads (a registered `Tool` is one). */
export interface DecisionTool {
  /** Canonical tool name. */
  readonly name: string;
  /** The tool's highest side-effect class. */
  readonly sideEffect: SideEffect;
  /** The class of one call, when it depends on the input. */
  // deno-lint-ignore no-explicit-any
  readonly sideEffectOf?: (input: any) => SideEffect;
}

/** Everything that decides one call, as the runner has it after the PreToolUse hooks. */
export interface CallDecisionInput extends Omit<DecisionInput, "tool" | "sideEffect" | "input"> {
  /** The tool. */
  tool: DecisionTool;
  /** The validated input (after the hooks). */
  input: Record<string, unknown>;
  /** What the PreToolUse hooks decided. Default: nothing. */
  hook?: HookVerdict;
  /** Asks a person when the decision is `ask`. Default: none, and such calls are refused. */
  approve?: (question: ApprovalQuestion) => Promise<ApprovalAnswer>;
}

/** The outcome of {@link decideCall}: run or refuse, with the reason. */
export interface CallDecision {
  /** Whether the call runs. */
  behavior: "allow" | "deny";
  /** Why, in words for the model. */
  reason: string;
}

/**
 * Decides one call, asking the approver when the policy says `ask`. Order: a
 * hook's deny; the policy ({@link decidePermission}, with the per-call class
 * from {@link callSideEffect}); a hook's allow or ask unless the policy
 * denied; then an ask is refused in dontAsk mode or without an approver, and
 * otherwise the approver's answer decides (its failure denies).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { decideCall } from "./decide.ts";
 * const tool = { name: "Edit", sideEffect: "Mutating" as const };
 * const asked = await decideCall({
 *   tool,
 *   input: {},
 *   mode: "default",
 *   approve: () => Promise.resolve(true),
 * });
 * assert.equal(asked.behavior, "allow");
 * const alone = await decideCall({ tool, input: {}, mode: "default" });
 * assert.ok(alone.behavior === "deny" && alone.reason.includes("no approver is set"));
 * ```
 */
export async function decideCall(call: CallDecisionInput): Promise<CallDecision> {
  const { tool, hook, approve, ...context } = call;
  if (hook?.decision === "deny") {
    return { behavior: "deny", reason: `Denied by a hook${hook.reason ? `: ${hook.reason}` : ""}` };
  }
  const sideEffect = callSideEffect(tool, call.input);
  // Bash rules judge each simple command: load the shell parser when this command needs it
  if (tool.name === "Bash") await loadBashJudge(call.input.command, call.rules);
  const policy = decidePermission({ ...context, tool: tool.name, sideEffect });
  const hookDecides = hook && policy.behavior !== "deny" && !(policy.personOnly && hook.decision === "allow");
  const behavior = hookDecides ? hook.decision : policy.behavior;
  if (behavior !== "ask") return { behavior, reason: policy.reason };
  if (call.mode === "dontAsk") {
    return { behavior: "deny", reason: `${policy.reason}, and dontAsk mode refuses it` };
  }
  if (!approve) {
    return {
      behavior: "deny",
      reason:
        `${policy.reason}, and no approver is set: allow it with a rule, the allowed set or another permission mode`,
    };
  }
  let answer: ApprovalAnswer;
  try {
    answer = await approve({ sideEffect, reason: policy.reason });
  } catch (err) {
    return { behavior: "deny", reason: `The approver failed: ${describeError(err).message}` };
  }
  if (typeof answer === "boolean" ? answer : answer.behavior === "allow") {
    return { behavior: "allow", reason: `The user approved "${tool.name}"` };
  }
  const why = typeof answer === "object" && answer.reason ? `: ${answer.reason}` : "";
  return { behavior: "deny", reason: `The user denied "${tool.name}"${why}` };
}

/**
 * The class of one call: `tool.sideEffectOf(input)` when the tool has it and
 * it answers a class, else the tool's own class.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { callSideEffect } from "./decide.ts";
 * const config = {
 *   sideEffect: "Mutating" as const,
 *   sideEffectOf: (i: { value?: string }) => i.value ? "Mutating" as const : "ReadOnly" as const,
 * };
 * assert.equal(callSideEffect(config, {}), "ReadOnly");
 * ```
 */
export function callSideEffect(
  tool: Pick<DecisionTool, "sideEffect" | "sideEffectOf">,
  input: Record<string, unknown>,
): SideEffect {
  try {
    const effect = tool.sideEffectOf?.(input);
    if (isSideEffect(effect)) return effect;
  } catch {
    // fall back to the tool's own class
  }
  return tool.sideEffect;
}

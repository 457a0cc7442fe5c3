/**
 * Permissions as data: side-effect classes, permission modes and presets,
 * rules (`Bash(git status)`, `Read(/etc/**)`), the pure decision for one
 * call, the Deno flags a set of tools needs, and the start-up check of what
 * the process really holds.
 *
 * @example Decide one call
 * ```ts
 * import assert from "node:assert/strict";
 * import { decidePermission } from "./mod.ts";
 * const decision = decidePermission({
 *   tool: "Bash",
 *   sideEffect: "Execute",
 *   input: { command: "rm -rf /" },
 *   mode: "default",
 *   rules: { deny: ["Bash(rm:*)"] },
 * });
 * assert.equal(decision.behavior, "deny");
 * ```
 *
 * @module
 */
export { isReadOnly, isSideEffect, SIDE_EFFECTS } from "./side_effect.ts";
export type { SideEffect } from "./side_effect.ts";
export {
  CONFIRMATION_PRESETS,
  DEFAULT_PRESET,
  isConfirmationPreset,
  isPermissionMode,
  PERMISSION_MODES,
  PLAN_MODE_BLOCKED,
  presetAsks,
} from "./modes.ts";
export type { ConfirmationPreset, PermissionMode } from "./modes.ts";
export { evaluateRules, judgeBashCommand, parseRule, ruleMatches } from "./rules.ts";
export type { BashJudgement, BashJudgeOptions, ParsedRule, PermissionRules, RuleSubject } from "./rules.ts";
export { decidePermission } from "./decide.ts";
export { PROTECTED_PATHS, protectedPathOf, realPathOf, SHELL_STARTUP_FILES } from "./protected_paths.ts";
export type { ProtectedPathOptions } from "./protected_paths.ts";
export type { Decision, DecisionInput } from "./decide.ts";
export { denoRunLine, neededPermissions, toDenoFlags } from "./deno_flags.ts";
export type { FlagPolicy, PermissionSet, ToolNeeds } from "./deno_flags.ts";
export { checkGrants, formatGrantReport } from "./grants.ts";
export type { CheckOptions, GrantReport, GrantTarget, PermissionQuery, ToolGrant } from "./grants.ts";

/**
 * Permission modes and the confirmation presets.
 *
 * @module
 */
import type { SideEffect } from "./side_effect.ts";

/**
 * The permission modes a session can be in.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { PERMISSION_MODES } from "./modes.ts";
 * assert.ok(PERMISSION_MODES.includes("acceptEdits"));
 * ```
 */
export const PERMISSION_MODES = [
  "default",
  "acceptEdits",
  "plan",
  "bypassPermissions",
  "dontAsk",
] as const;

/**
 * One of {@link PERMISSION_MODES}.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { createRuntime, type PermissionMode } from "../../mod.ts";
 * const mode: PermissionMode = "plan";
 * await using rt = createRuntime({ roots: [Deno.cwd()], mode });
 * assert.equal(rt.session.mode, "plan");
 * ```
 */
export type PermissionMode = typeof PERMISSION_MODES[number];

/**
 * The confirmation presets, named as in the PRD (FR5): which calls ask for
 * confirmation once no rule, mode or allowed set has decided them.
 *
 * | preset | PRD meaning | asks for |
 * | --- | --- | --- |
 * | `none` | always require confirmation | every class but in-memory (`None`) and `Blocking` |
 * | `safe` (default) | auto-approve read operations | `Mutating`, `Execute`, `Network` |
 * | `all` | auto-approve everything ("yolo") | nothing |
 *
 * No preset approves what only a person may (a write to a protected path, a
 * command leaving the sandbox) or what a deny or ask rule covers.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { CONFIRMATION_PRESETS } from "./modes.ts";
 * assert.deepEqual([...CONFIRMATION_PRESETS], ["none", "safe", "all"]);
 * ```
 */
export const CONFIRMATION_PRESETS = ["none", "safe", "all"] as const;

/**
 * One of {@link CONFIRMATION_PRESETS}.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { type ConfirmationPreset, presetAsks } from "./modes.ts";
 * const preset: ConfirmationPreset = "safe";
 * assert.ok(presetAsks(preset, "Execute"));
 * assert.ok(!presetAsks(preset, "ReadOnly"));
 * ```
 */
export type ConfirmationPreset = typeof CONFIRMATION_PRESETS[number];

/**
 * Classes that never run in plan mode.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { PLAN_MODE_BLOCKED } from "./modes.ts";
 * assert.ok(PLAN_MODE_BLOCKED.includes("Mutating"));
 * assert.ok(!PLAN_MODE_BLOCKED.includes("ReadOnly"));
 * ```
 */
export const PLAN_MODE_BLOCKED: readonly SideEffect[] = ["Mutating", "Execute", "Network"];

/**
 * The preset a session uses when none is given: auto-approve reads, ask for
 * the rest.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { DEFAULT_PRESET } from "./modes.ts";
 * assert.equal(DEFAULT_PRESET, "safe");
 * ```
 */
export const DEFAULT_PRESET: ConfirmationPreset = "safe";

/**
 * Whether a class asks for confirmation under a preset (PRD FR5): `none`
 * always confirms (every class but in-memory tools and `Blocking` ones, which
 * wait for a person anyway), `safe` auto-approves reads and asks for classes
 * that change or reach out (Mutating, Execute, Network; a sub-agent (Spawns)
 * does not ask, since each of its own calls goes through the same decision),
 * `all` auto-approves everything.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { presetAsks } from "./modes.ts";
 * assert.equal(presetAsks("none", "ReadOnly"), true);
 * assert.equal(presetAsks("safe", "Execute"), true);
 * assert.equal(presetAsks("safe", "ReadOnly"), false);
 * assert.equal(presetAsks("all", "Execute"), false);
 * ```
 */
export function presetAsks(preset: ConfirmationPreset, sideEffect: SideEffect): boolean {
  switch (preset) {
    case "none":
      return sideEffect !== "None" && sideEffect !== "Blocking";
    case "safe":
      return sideEffect === "Mutating" || sideEffect === "Execute" || sideEffect === "Network";
    case "all":
      return false;
  }
}

/**
 * True when `value` names a confirmation preset.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { isConfirmationPreset } from "./modes.ts";
 * assert.ok(isConfirmationPreset("safe"));
 * assert.ok(!isConfirmationPreset("yolo"));
 * ```
 */
export function isConfirmationPreset(value: unknown): value is ConfirmationPreset {
  return typeof value === "string" && (CONFIRMATION_PRESETS as readonly string[]).includes(value);
}

/**
 * True when `value` names a permission mode.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { isPermissionMode } from "./modes.ts";
 * assert.ok(isPermissionMode("plan"));
 * assert.ok(!isPermissionMode("yolo"));
 * ```
 */
export function isPermissionMode(value: unknown): value is PermissionMode {
  return typeof value === "string" && (PERMISSION_MODES as readonly string[]).includes(value);
}

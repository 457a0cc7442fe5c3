/**
 * Permission modes and the confirmation presets.
 *
 * @module
 */
import type { SideEffect } from "../tool/define_tool.ts";

/** The permission modes a session can be in. */
export const PERMISSION_MODES = [
  "default",
  "acceptEdits",
  "plan",
  "bypassPermissions",
  "dontAsk",
] as const;

/** One of {@link PERMISSION_MODES}. */
export type PermissionMode = typeof PERMISSION_MODES[number];

/** Which side-effect classes ask for confirmation in `default` mode. */
export const CONFIRMATION_PRESETS = ["none", "safe", "all"] as const;

/** One of {@link CONFIRMATION_PRESETS}. */
export type ConfirmationPreset = typeof CONFIRMATION_PRESETS[number];

/** Classes that never run in plan mode. */
export const PLAN_MODE_BLOCKED: readonly SideEffect[] = ["Mutating", "Execute", "Network"];

/**
 * Whether a class asks for confirmation under a preset: `none` never asks,
 * `safe` asks for classes that change or reach out (Mutating, Execute,
 * Network; a sub-agent (Spawns) does not ask, since each of its own calls goes
 * through the same decision), `all` asks for everything but in-memory tools.
 *
 * @example
 * ```ts
 * import { presetAsks } from "./modes.ts";
 * console.assert(presetAsks("safe", "Execute") === true);
 * console.assert(presetAsks("safe", "ReadOnly") === false);
 * ```
 */
export function presetAsks(preset: ConfirmationPreset, sideEffect: SideEffect): boolean {
  switch (preset) {
    case "none":
      return false;
    case "all":
      return sideEffect !== "None" && sideEffect !== "Blocking";
    case "safe":
      return sideEffect === "Mutating" || sideEffect === "Execute" || sideEffect === "Network";
  }
}

/** True when `value` names a permission mode. */
export function isPermissionMode(value: unknown): value is PermissionMode {
  return typeof value === "string" && (PERMISSION_MODES as readonly string[]).includes(value);
}

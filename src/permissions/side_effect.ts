/**
 * The side-effect classes of tools: the one vocabulary the session, the
 * permission rules and the runner share. A leaf: it imports nothing, so any
 * layer may import it.
 *
 * @module
 */

/**
 * Side-effect classes, from harmless to most powerful.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { SIDE_EFFECTS } from "./side_effect.ts";
 * assert.equal(SIDE_EFFECTS[0], "None");
 * assert.ok(SIDE_EFFECTS.includes("Network"));
 * ```
 */
export const SIDE_EFFECTS = [
  "None",
  "ReadOnly",
  "Mutating",
  "Execute",
  "Network",
  "Blocking",
  "Spawns",
] as const;

/**
 * One of {@link SIDE_EFFECTS}.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import type { SideEffect } from "./side_effect.ts";
 * // one word per class, for a status line
 * const verb: Record<SideEffect, string> = {
 *   None: "thinks",
 *   ReadOnly: "reads",
 *   Mutating: "writes",
 *   Execute: "runs",
 *   Network: "fetches",
 *   Blocking: "asks",
 *   Spawns: "delegates",
 * };
 * assert.equal(verb.Mutating, "writes");
 * ```
 */
export type SideEffect = typeof SIDE_EFFECTS[number];

/**
 * True when `value` names a side-effect class.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { isSideEffect } from "./side_effect.ts";
 * assert.ok(isSideEffect("Execute") && !isSideEffect("Everything"));
 * ```
 */
export function isSideEffect(value: unknown): value is SideEffect {
  return typeof value === "string" && (SIDE_EFFECTS as readonly string[]).includes(value);
}

/**
 * True for classes that only read: safe to run in parallel and in plan mode.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { isReadOnly } from "./side_effect.ts";
 * assert.ok(isReadOnly("ReadOnly") && !isReadOnly("Mutating"));
 * ```
 */
export function isReadOnly(sideEffect: SideEffect): boolean {
  return sideEffect === "None" || sideEffect === "ReadOnly";
}

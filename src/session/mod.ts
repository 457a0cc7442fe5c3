/**
 * A session (working directory, workspace roots, permission mode, output
 * folder, per-session state), the path containment every file tool applies,
 * and the project settings file `.paddock/settings.json`.
 *
 * @example Check a path against the workspace
 * ```ts
 * import assert from "node:assert/strict";
 * import { isInside, Session } from "./mod.ts";
 * await using session = new Session({ roots: ["/work/project"] });
 * assert.ok(isInside("/work/project/src/a.ts", session.roots));
 * assert.ok(!isInside("/etc/passwd", session.roots));
 * ```
 *
 * @module
 */
export { defaultOutputRoot, Session } from "./session.ts";
export type { SessionEvent, SessionOptions } from "./session.ts";
export { sessionConfig } from "./config.ts";
export { isInside, resolveSafePath } from "./workspace.ts";
export type { SafePath, SafePathOptions, WorkspaceScope } from "./workspace.ts";
export { loadSettings, saveSettings, SETTINGS_FILE, settingsPath } from "./settings.ts";
export type { Settings } from "./settings.ts";

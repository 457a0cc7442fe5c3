/**
 * The settings changed during a session (by the Config tool), kept in the
 * session's `config` slot so that lower layers (the agent loop's model
 * choice) read them without importing the tool.
 *
 * @module
 */
import type { Session } from "./session.ts";

/**
 * Values set through Config in this session, keyed by setting (`model`,
 * `permissions.defaultMode`…). The agent loop reads `model` here.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { Session } from "./session.ts";
 * import { sessionConfig } from "./config.ts";
 * const s = new Session({ roots: [Deno.cwd()] });
 * sessionConfig(s).model = "gpt-4o-mini";
 * assert.equal(sessionConfig(s).model, "gpt-4o-mini");
 * ```
 */
export function sessionConfig(session: Session): Record<string, unknown> {
  return session.slot("config", () => ({} as Record<string, unknown>));
}

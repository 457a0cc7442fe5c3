/**
 * Ready-made middleware for {@link runTool}.
 *
 * @module
 */
import type { ToolMiddleware } from "./hooks.ts";
import { TOOL_ALIASES } from "./registry.ts";

/**
 * Logs every call and its outcome through `log`.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { loggingMiddleware } from "./middleware.ts";
 * const lines: string[] = [];
 * const mw = loggingMiddleware((l) => lines.push(l));
 * await mw(
 *   { name: "X", input: {} },
 *   () => Promise.resolve({ id: "1", tool: "X", ok: true, text: "", elapsedMs: 1 }),
 * );
 * assert.equal(lines.length, 2);
 * ```
 */
export function loggingMiddleware(log: (line: string) => void): ToolMiddleware {
  return async (call, next) => {
    log(`→ ${call.name} ${typeof call.input === "string" ? call.input : JSON.stringify(call.input)}`);
    const result = await next(call);
    log(
      `← ${result.tool} ${result.ok ? "ok" : `error ${result.error?.code}`} ${
        result.elapsedMs.toFixed(1)
      } ms`,
    );
    return result;
  };
}

/**
 * Refuses calls to the named tools before anything else runs. Names and aliases are matched by
 * their canonical name (THREATS.md P5): denying `TaskStop` also refuses `KillShell`, and the other way.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { denyListMiddleware } from "./middleware.ts";
 * const mw = denyListMiddleware(["Bash"]);
 * const r = await mw({ name: "Bash", input: {} }, () => {
 *   throw new Error("must not run");
 * });
 * assert.ok(r.text.startsWith("Error: "));
 * ```
 */
export function denyListMiddleware(names: readonly string[]): ToolMiddleware {
  const canonical = (name: string) => TOOL_ALIASES[name] ?? name;
  const denied = new Set(names.map(canonical));
  return (call, next) => {
    if (!denied.has(canonical(call.name))) return next(call);
    const message = `Tool "${call.name}" is on the deny list`;
    return Promise.resolve({
      id: call.id ?? "denied",
      tool: call.name,
      ok: false,
      text: `Error: ${message}`,
      error: { code: "permission_denied", message },
      elapsedMs: 0,
    });
  };
}

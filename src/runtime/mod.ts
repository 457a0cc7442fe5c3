/**
 * Runtimes: {@link createRuntime} binds tools, a session and the run options
 * together (the CLI, the agent loop and the MCP server all start from one),
 * and {@link commandHooks} turns the `hooks` of a settings file into hooks
 * that run shell commands.
 *
 * @example Hooks from a settings file
 * ```ts
 * import assert from "node:assert/strict";
 * import { commandHooks, parseCommandHooks } from "./mod.ts";
 * const config = parseCommandHooks({ PreToolUse: [{ matcher: "Bash", command: "exit 0" }] });
 * assert.equal(commandHooks(config).preToolUse?.length, 1);
 * ```
 *
 * @module
 */
export { createRuntime } from "./runtime.ts";
export type { Runtime, RuntimeOptions } from "./runtime.ts";
export {
  commandHooks,
  DEFAULT_HOOK_TIMEOUT_MS,
  hasCommandHooks,
  parseCommandHooks,
} from "./command_hooks.ts";
export type { CommandHookConfig, CommandHooksConfig, CommandHooksOptions } from "./command_hooks.ts";

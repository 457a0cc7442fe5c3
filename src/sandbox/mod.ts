/**
 * The OS sandbox Bash runs in (bubblewrap on Linux, sandbox-exec on macOS):
 * its settings, the wrapped command line, the start-up self-test, the
 * allowlisted environment, and the escape probes of `paddock sandbox check`.
 * It fails closed: when asked for and unable to start, it throws an
 * `UnavailableError` and never runs the command unsandboxed.
 *
 * @example Wrap a command line
 * ```ts
 * import assert from "node:assert/strict";
 * import { sandboxCommand, sandboxProgram } from "./mod.ts";
 * if (sandboxProgram() === "bwrap") {
 *   const line = sandboxCommand(["bash", "-c", "true"], { writable: ["/w"], cwd: "/w" });
 *   assert.equal(line.program, "bwrap");
 *   assert.equal(line.args.at(-1), "true");
 *   await line.release();
 * }
 * ```
 *
 * @module
 */
export { sandboxCommand, sandboxProgram, sandboxSelfTest } from "./sandbox.ts";
export { sandboxPermissions } from "./needs.ts";
export type { CommandLine, SandboxRun, SandboxSettings } from "./sandbox.ts";
export { SANDBOX_ENV_NAMES, sandboxEnv } from "./env.ts";
export { DEFAULT_PROBE_TIMEOUT_MS, formatCheckTable, sandboxCheck } from "./check.ts";
export type { CheckOptions, CheckRow } from "./check.ts";
export { DEFAULT_HIDDEN_PATHS, PROTECTED_PATHS, SHELL_STARTUP_FILES } from "./protect.ts";
export { DEFAULT_MAX_MEMORY_MIB, DEFAULT_MAX_PROCESSES } from "./limits.ts";
export type { LimitMechanism } from "./limits.ts";

/**
 * Hooks configured in the settings file as shell commands, turned into the
 * runner's {@link Hooks}. A hook command gets the event as JSON on stdin:
 * `{hook_event_name, tool_name, tool_input, tool_call_id, session_id, cwd,
 * tool_response?}`. Exit 0 goes on (stdout, if a JSON object, may carry
 * `decision`, `reason`, `updatedInput`, `additionalContext`; other stdout is
 * added as context); exit 2 blocks a PreToolUse call with stderr as the reason
 * (for the post hooks, stderr is added as context); any other exit is
 * reported as context and does not block.
 *
 * @module
 */
import { processEnv, sandboxEnv } from "../sandbox/env.ts";
import type { Hooks, PostToolUseEvent, PreToolUseAnswer, PreToolUseEvent } from "../tool/hooks.ts";

/**
 * One configured hook command.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { type CommandHookConfig, commandHooks } from "./command_hooks.ts";
 * const format: CommandHookConfig = {
 *   matcher: "Edit|Write",
 *   command: "deno fmt --quiet",
 *   timeoutMs: 30_000,
 * };
 * assert.equal(commandHooks({ PostToolUse: [format] }).postToolUse?.length, 1);
 * ```
 */
export interface CommandHookConfig {
  /** Regular expression on the tool name (`Bash`, `Edit|Write`, `mcp__.*`); empty or `*` for every tool. */
  matcher?: string;
  /** The command, run with `bash -c` in the session cwd. */
  command: string;
  /** Time limit (ms). Default {@link DEFAULT_HOOK_TIMEOUT_MS}. */
  timeoutMs?: number;
}

/**
 * The `hooks` section of the settings file.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { type CommandHooksConfig, hasCommandHooks } from "./command_hooks.ts";
 * const config: CommandHooksConfig = {
 *   PreToolUse: [{ matcher: "Bash", command: "./scripts/check-command.sh" }],
 * };
 * assert.ok(hasCommandHooks(config));
 * ```
 */
export interface CommandHooksConfig {
  /** Before a call runs. */
  PreToolUse?: CommandHookConfig[];
  /** After a call succeeded. */
  PostToolUse?: CommandHookConfig[];
  /** After a call failed. */
  PostToolUseFailure?: CommandHookConfig[];
}

/**
 * Time limit of one hook command when the config does not set one (ms).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { DEFAULT_HOOK_TIMEOUT_MS } from "./command_hooks.ts";
 * assert.equal(DEFAULT_HOOK_TIMEOUT_MS, 60_000);
 * ```
 */
export const DEFAULT_HOOK_TIMEOUT_MS = 60_000;

/** The program hook commands run with (for `--allow-run`). */
export const HOOK_SHELL = "bash";

/**
 * Checks a `hooks` settings value; throws a TypeError naming every problem.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { parseCommandHooks } from "./command_hooks.ts";
 * const h = parseCommandHooks({ PreToolUse: [{ matcher: "Bash", command: "exit 0" }] });
 * assert.ok(h.PreToolUse?.length === 1);
 * ```
 */
export function parseCommandHooks(value: unknown): CommandHooksConfig {
  if (value === undefined) return {};
  const problems: string[] = [];
  if (value === null || typeof value !== "object" || Array.isArray(value)) {
    throw new TypeError(`"hooks" must be an object with PreToolUse, PostToolUse or PostToolUseFailure lists`);
  }
  const out: CommandHooksConfig = {};
  for (const [event, list] of Object.entries(value as Record<string, unknown>)) {
    if (event !== "PreToolUse" && event !== "PostToolUse" && event !== "PostToolUseFailure") {
      problems.push(`unknown hook event "${event}": use PreToolUse, PostToolUse or PostToolUseFailure`);
      continue;
    }
    if (!Array.isArray(list)) {
      problems.push(`"hooks.${event}" must be a list`);
      continue;
    }
    out[event] = list.flatMap((entry, i) => {
      const at = `"hooks.${event}[${i}]"`;
      const e = entry as Record<string, unknown>;
      if (e === null || typeof e !== "object" || typeof e.command !== "string" || e.command.trim() === "") {
        problems.push(`${at} needs a "command" string`);
        return [];
      }
      if (e.matcher !== undefined && typeof e.matcher !== "string") {
        problems.push(`${at}.matcher must be a string`);
      } else if (typeof e.matcher === "string" && e.matcher !== "*") {
        try {
          new RegExp(e.matcher);
        } catch (err) {
          problems.push(`${at}.matcher is not a valid regular expression: ${(err as Error).message}`);
        }
      }
      if (e.timeoutMs !== undefined && !(Number.isInteger(e.timeoutMs) && (e.timeoutMs as number) > 0)) {
        problems.push(`${at}.timeoutMs must be a whole number of milliseconds above 0`);
      }
      return [{
        matcher: e.matcher as string | undefined,
        command: e.command,
        timeoutMs: e.timeoutMs as number | undefined,
      }];
    });
  }
  if (problems.length) throw new TypeError(`Invalid hooks in settings: ${problems.join("; ")}`);
  return out;
}

/**
 * True when at least one hook command is configured.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { hasCommandHooks } from "./command_hooks.ts";
 * assert.ok(hasCommandHooks({ PostToolUse: [{ command: "deno fmt" }] }));
 * assert.ok(!hasCommandHooks({}));
 * ```
 */
export function hasCommandHooks(config: CommandHooksConfig): boolean {
  return Boolean(
    config.PreToolUse?.length || config.PostToolUse?.length || config.PostToolUseFailure?.length,
  );
}

/**
 * Options of {@link commandHooks}.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { commandHooks, type CommandHooksOptions } from "./command_hooks.ts";
 * const options: CommandHooksOptions = { env: { PATH: "/usr/bin:/bin", CI: "1" }, passEnv: ["CI"] };
 * assert.ok(commandHooks({ PreToolUse: [{ command: "exit 0" }] }, options).preToolUse);
 * ```
 */
export interface CommandHooksOptions {
  /**
   * The environment hook commands are started from (the runtime's `env`); only its allowlisted
   * part reaches them (`sandboxEnv`: PATH, HOME, LANG, LC_*, TERM, TZ, USER, LOGNAME, SHELL,
   * TMPDIR and `passEnv`, never Paddock's model or search keys).
   * @default {this process's environment}
   */
  env?: Readonly<Record<string, string>>;
  /**
   * More variable names hook commands get (the user's `--pass-env`); Paddock's own keys are
   * held back even when named here.
   * @default {[]}
   */
  passEnv?: readonly string[];
  /**
   * Asked before every hook command: a reason not to run it, or undefined to run it. A refused
   * hook answers as a hook that exits 2 with that reason (a PreToolUse hook then blocks the call),
   * so a guard hook whose script the model changed fails closed instead of vanishing.
   * @default {none: every hook runs}
   */
  refuse?: () => string | undefined;
}

/**
 * Turns configured hook commands into runner hooks.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { commandHooks } from "./command_hooks.ts";
 * const hooks = commandHooks({ PreToolUse: [{ matcher: "Bash", command: "exit 0" }] });
 * assert.ok(hooks.preToolUse?.length === 1);
 * ```
 */
export function commandHooks(config: CommandHooksConfig, options: CommandHooksOptions = {}): Hooks {
  const passEnv = options.passEnv ?? [];
  let env: Record<string, string> | undefined;
  // read once, on the first hook run: the allowlisted environment every hook command gets
  const hookEnv = () => env ??= sandboxEnv(options.env ?? processEnv(passEnv), passEnv);
  const matches = (h: CommandHookConfig, tool: string) =>
    !h.matcher || h.matcher === "*" || new RegExp(`^(?:${h.matcher})$`).test(tool);
  const guarded = (h: CommandHookConfig, env: Record<string, string>, event: Record<string, unknown>) => {
    const reason = options.refuse?.();
    return reason === undefined
      ? runHook(h, env, event)
      : Promise.resolve({ code: 2, stdout: "", stderr: `Hook "${h.command}" was not run: ${reason}` });
  };
  const hooks: Hooks = {};
  if (config.PreToolUse?.length) {
    hooks.preToolUse = [async (e: PreToolUseEvent) => {
      const answers: PreToolUseAnswer = {};
      const context: string[] = [];
      let input = e.input;
      for (const h of config.PreToolUse!.filter((h) => matches(h, e.tool))) {
        const r = await guarded(h, hookEnv(), {
          hook_event_name: "PreToolUse",
          ...payload(e),
          tool_input: input,
        });
        if (r.code === 2) {
          return { decision: "deny", reason: r.stderr.trim() || `hook "${h.command}" blocked it` };
        }
        if (r.code !== 0) {
          context.push(`(PreToolUse hook "${h.command}" failed with exit ${r.code}: ${r.stderr.trim()})`);
          continue;
        }
        const json = asObject(r.stdout);
        if (!json) {
          if (r.stdout.trim()) context.push(r.stdout.trim());
          continue;
        }
        if (json.decision === "deny") {
          return { decision: "deny", reason: String(json.reason ?? "") || undefined };
        }
        if (json.decision === "allow" || json.decision === "ask") answers.decision = json.decision;
        if (json.updatedInput && typeof json.updatedInput === "object") {
          input = json.updatedInput as Record<string, unknown>;
          answers.updatedInput = input;
        }
        if (typeof json.additionalContext === "string") context.push(json.additionalContext);
      }
      if (context.length) answers.additionalContext = context.join("\n");
      return answers;
    }];
  }
  const post = (name: "PostToolUse" | "PostToolUseFailure", list: CommandHookConfig[] | undefined) =>
    list?.length
      ? [async (e: PostToolUseEvent) => {
        const context: string[] = [];
        for (const h of list.filter((h) => matches(h, e.tool))) {
          const r = await guarded(h, hookEnv(), {
            hook_event_name: name,
            ...payload(e),
            tool_response: {
              ok: e.result.ok,
              text: e.result.text,
              data: e.result.data,
              error: e.result.error,
            },
          });
          const json = r.code === 0 ? asObject(r.stdout) : undefined;
          if (json && typeof json.additionalContext === "string") context.push(json.additionalContext);
          else if (r.code === 0 && r.stdout.trim()) context.push(r.stdout.trim());
          else if (r.code === 2 && r.stderr.trim()) context.push(r.stderr.trim());
          else if (r.code !== 0) {
            context.push(`(${name} hook "${h.command}" failed with exit ${r.code}: ${r.stderr.trim()})`);
          }
        }
        return context.length ? { additionalContext: context.join("\n") } : undefined;
      }]
      : undefined;
  const postOk = post("PostToolUse", config.PostToolUse);
  const postFail = post("PostToolUseFailure", config.PostToolUseFailure);
  if (postOk) hooks.postToolUse = postOk;
  if (postFail) hooks.postToolUseFailure = postFail;
  return hooks;
}

function payload(e: PreToolUseEvent) {
  return {
    tool_name: e.tool,
    tool_input: e.input,
    tool_call_id: e.callId,
    session_id: e.session.id,
    cwd: e.session.cwd,
  };
}

function asObject(text: string): Record<string, unknown> | undefined {
  const t = text.trim();
  if (!t.startsWith("{")) return undefined;
  try {
    const v = JSON.parse(t);
    return v && typeof v === "object" && !Array.isArray(v) ? v : undefined;
  } catch {
    return undefined;
  }
}

async function runHook(
  hook: CommandHookConfig,
  env: Record<string, string>,
  event: Record<string, unknown>,
): Promise<{ code: number; stdout: string; stderr: string }> {
  const child = new Deno.Command(HOOK_SHELL, {
    args: ["-c", hook.command],
    cwd: typeof event.cwd === "string" ? event.cwd : undefined,
    env,
    clearEnv: true,
    stdin: "piped",
    stdout: "piped",
    stderr: "piped",
    signal: AbortSignal.timeout(hook.timeoutMs ?? DEFAULT_HOOK_TIMEOUT_MS),
  }).spawn();
  const writer = child.stdin.getWriter();
  await writer.write(new TextEncoder().encode(JSON.stringify(event))).catch(() => {});
  await writer.close().catch(() => {});
  const out = await child.output();
  const dec = new TextDecoder();
  const code = out.signal ? 124 : out.code;
  const stderr = out.signal
    ? `timed out after ${hook.timeoutMs ?? DEFAULT_HOOK_TIMEOUT_MS} ms`
    : dec.decode(out.stderr);
  return { code, stdout: dec.decode(out.stdout), stderr };
}

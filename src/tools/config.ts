/**
 * Config: reads or changes one known setting. A change is type-checked,
 * kept in the session's `config` slot and announced with a `config` event;
 * `permissions.defaultMode` also changes the session's mode, and only to a
 * narrower one. Changes last for the session and are never written to
 * `.paddock/settings.json`: that file is a protected path, the trust digest
 * covers it (a model's write would make the user's trusted hooks lapse), and
 * nothing the model does may widen a later run (THREATS.md P3, P4).
 *
 * @module
 */
import { z } from "zod";
import { InvalidInputError, PermissionDeniedError } from "../errors.ts";
import { defineTool, type Tool } from "../tool/define_tool.ts";
import { sessionConfig } from "../session/config.ts";
import { isPermissionMode, PERMISSION_MODES, type PermissionMode } from "../permissions/modes.ts";
import { loadSettings, type Settings, settingsPath } from "../session/settings.ts";
import { resolveSafePath } from "../session/workspace.ts";
import { planState } from "./exit_plan_mode.ts";

// the session's config state lives below the tools (the agent loop reads it); importers find it here too
export { sessionConfig } from "../session/config.ts";

/** A setting's value as the tool takes it. */
type Raw = string | boolean | number;

interface SettingSpec {
  /** What it does, with the accepted values. */
  describe: string;
  /** Checks and converts a value; throws {@link InvalidInputError} with what is expected. */
  parse: (value: Raw, setting: string) => unknown;
}

/** How much each mode lets run without asking: Config may only move down this scale (P4). */
const MODE_REACH: Readonly<Record<PermissionMode, number>> = {
  plan: 0,
  dontAsk: 1,
  default: 2,
  acceptEdits: 3,
  bypassPermissions: 4,
};

/** Modes Config may switch to: raising the session to bypassPermissions takes the user's own flag. */
const SETTABLE_MODES = PERMISSION_MODES.filter((m) => m !== "bypassPermissions");

const SETTINGS: Record<string, SettingSpec> = {
  model: {
    describe: "the model the agent loop uses (a string)",
    parse: (v, s) => {
      if (typeof v !== "string" || v.trim() === "") throw expected(s, "a non-empty string", v);
      return v.trim();
    },
  },
  "permissions.defaultMode": {
    describe: `the permission mode (${SETTABLE_MODES.join(", ")})`,
    parse: (v, s) => {
      if (v === "bypassPermissions") {
        throw new InvalidInputError(
          `Config cannot switch to "bypassPermissions": the user has to start paddock with --permission-mode bypassPermissions`,
        );
      }
      if (!isPermissionMode(v)) {
        throw expected(
          s,
          `one of ${SETTABLE_MODES.map((m) => `"${m}"`).join(", ")}`,
          v,
        );
      }
      return v;
    },
  },
  sandbox: {
    describe: "whether Bash runs inside the OS sandbox (read only: only the user changes it)",
    parse: (_v, s) => {
      throw userOnly(s, "--sandbox / --no-sandbox");
    },
  },
  allowedHosts: {
    describe: "hosts the network tools may reach (read only: only the user changes them)",
    parse: (_v, s) => {
      throw userOnly(s, "--allow-host");
    },
  },
};

/**
 * The settings Config knows, in the order it lists them.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { KNOWN_SETTINGS } from "./config.ts";
 * assert.ok(KNOWN_SETTINGS.includes("model"));
 * ```
 */
export const KNOWN_SETTINGS: readonly string[] = Object.keys(SETTINGS);

/** Settings that widen what runs or what is reached: the model may read them, never change them (P4). */
function userOnly(setting: string, flag: string): PermissionDeniedError {
  return new PermissionDeniedError(
    `Config cannot change "${setting}": it widens what commands may do, so only the user sets it, with ${flag} or in ~/.config/paddock/settings.json`,
  );
}

function expected(setting: string, what: string, got: Raw): InvalidInputError {
  return new InvalidInputError(
    `Invalid value for "${setting}": expected ${what}, got ${typeof got} ${JSON.stringify(got)}`,
  );
}

function getPath(settings: Settings, path: string): unknown {
  let node: unknown = settings;
  for (const key of path.split(".")) {
    if (node === null || typeof node !== "object" || Array.isArray(node)) return undefined;
    node = (node as Record<string, unknown>)[key];
  }
  return node;
}

/**
 * Input of Config.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { type ConfigInput, configTool } from "./config.ts";
 * const input: ConfigInput = { setting: "model", value: "gpt-4.1-mini" };
 * assert.ok(configTool.input.safeParse(input).success);
 * ```
 */
export interface ConfigInput {
  /** The setting's name. */
  setting: string;
  /** The new value; absent for a read. */
  value?: string | boolean | number;
}

const input: z.ZodType<ConfigInput> = z.strictObject({
  setting: z.string().describe(`The setting's name: one of ${KNOWN_SETTINGS.join(", ")}`),
  value: z.union([z.string(), z.boolean(), z.number()]).optional()
    .describe("The new value; leave it out to read the current one"),
});

type Input = ConfigInput;

/**
 * Structured result of Config: `value` for a read, `previousValue` and `newValue` for a set.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { runTool, ToolRegistry } from "../../mod.ts";
 * import { type ConfigResult, configTool } from "./config.ts";
 * const r = await runTool(new ToolRegistry([configTool]), { name: "Config", input: { setting: "model" } });
 * assert.equal((r.data as ConfigResult).operation, "get");
 * ```
 */
export interface ConfigResult {
  /** Always true in a result; failures are errors. */
  success: true;
  /** What was done. */
  operation: "get" | "set";
  /** The setting's name. */
  setting: string;
  /** The current value (get). */
  value?: unknown;
  /** The value before the change (set). */
  previousValue?: unknown;
  /** The value after the change (set). */
  newValue?: unknown;
}

/**
 * Config `{setting, value?}`. A read is ReadOnly (it runs in plan mode), a set is Mutating.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { runTool, Session, ToolRegistry } from "../../mod.ts";
 * import { configTool } from "./config.ts";
 * const dir = await Deno.makeTempDir();
 * const session = new Session({ roots: [dir] });
 * const r = await runTool(new ToolRegistry([configTool]), { name: "Config", input: { setting: "model" } }, {
 *   session,
 * });
 * assert.ok(r.ok && r.text.includes("not set"));
 * await Deno.remove(dir, { recursive: true });
 * ```
 */
export const configTool: Tool<ConfigInput, ConfigResult> = defineTool<Input, ConfigResult>({
  name: "Config",
  description:
    "Reads or changes a setting of this project. Without `value` it reports the current value; with " +
    `\`value\` it changes it for this session (the permission mode only to a narrower one). Settings: ${
      KNOWN_SETTINGS.map((k) => `${k}: ${SETTINGS[k].describe}`).join("; ")
    }.`,
  sideEffect: "Mutating",
  sideEffectOf: (i) => (i.value === undefined ? "ReadOnly" : "Mutating"),
  input,
  summarize: (i) => (i.value === undefined ? i.setting : `${i.setting} = ${JSON.stringify(i.value)}`),
  execute: (i, ctx) => {
    const spec = Object.hasOwn(SETTINGS, i.setting) ? SETTINGS[i.setting] : undefined;
    if (!spec) {
      throw new InvalidInputError(
        `Unknown setting "${i.setting}": known settings are ${KNOWN_SETTINGS.join(", ")}`,
      );
    }
    const config = sessionConfig(ctx.session);
    const file = settingsPath(ctx.roots[0]);
    // the folder or file may be a symlink: read and write only where it really stays inside the workspace
    const target = () => resolveSafePath(file, ctx, { param: "setting", mustExist: false }).real;
    const current = () =>
      Object.hasOwn(config, i.setting) ? config[i.setting] : getPath(loadSettings(target()), i.setting);
    if (i.value === undefined) {
      const value = i.setting === "permissions.defaultMode" ? ctx.session.mode : current();
      const text = value === undefined
        ? `"${i.setting}" is not set`
        : `${i.setting} = ${JSON.stringify(value)}`;
      return Promise.resolve({ text, data: { success: true, operation: "get", setting: i.setting, value } });
    }
    const newValue = spec.parse(i.value, i.setting);
    const previousValue = i.setting === "permissions.defaultMode" ? ctx.session.mode : current();
    if (i.setting === "permissions.defaultMode") {
      const mode = newValue as PermissionMode;
      if (MODE_REACH[mode] > MODE_REACH[ctx.session.mode]) {
        throw new PermissionDeniedError(
          `Config cannot widen the permission mode from "${ctx.session.mode}" to "${mode}": only the user can, with --permission-mode ${mode} (or ExitPlanMode to leave plan mode with the user's approval)`,
        );
      }
      if (mode === "plan" && ctx.session.mode !== "plan") {
        planState(ctx.session).previousMode = ctx.session.mode;
      }
      ctx.session.setMode(mode);
    }
    config[i.setting] = newValue;
    ctx.session.emit({ type: "config", setting: i.setting, value: newValue, previousValue });
    return Promise.resolve({
      text: `${i.setting}: ${JSON.stringify(previousValue ?? null)} -> ${
        JSON.stringify(newValue)
      } (for this session)`,
      data: { success: true, operation: "set", setting: i.setting, previousValue, newValue },
    });
  },
});

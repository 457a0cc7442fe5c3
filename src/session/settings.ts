/**
 * The settings files: the project's `.paddock/settings.json` in the first
 * workspace root, and the user's own `<userConfigDir>/settings.json`.
 * Precedence: flags, env, user settings, then the project's (whose widening
 * parts apply only once trusted, see `trust.ts`).
 *
 * @module
 */
import { dirname, join } from "node:path";
import type { PermissionMode } from "../permissions/modes.ts";
import type { PermissionRules } from "../permissions/rules.ts";

/**
 * What the settings file holds. Unknown keys are kept as they are.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { loadSettings, saveSettings, type Settings, settingsPath } from "./settings.ts";
 * const root = await Deno.makeTempDir();
 * const settings: Settings = {
 *   model: "qwen3",
 *   permissions: { defaultMode: "acceptEdits", deny: ["Bash(rm:*)"] },
 * };
 * saveSettings(settingsPath(root), settings);
 * assert.deepEqual(loadSettings(settingsPath(root)).permissions?.deny, ["Bash(rm:*)"]);
 * await Deno.remove(root, { recursive: true });
 * ```
 */
export interface Settings {
  /** Model name for the agent loop. */
  model?: string;
  /** Base URL of the chat-completions endpoint. */
  baseUrl?: string;
  /** Permission settings. */
  permissions?: PermissionRules & { defaultMode?: PermissionMode };
  /** Run Bash inside the OS sandbox. */
  sandbox?: boolean;
  /** Hosts the Network tools may reach (`*` for any). */
  allowedHosts?: string[];
  /** Hook commands by event (see `src/runtime/command_hooks.ts`). */
  hooks?: Record<string, unknown>;
  /** Other settings. */
  [key: string]: unknown;
}

/**
 * Relative location of the settings file inside the first root.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { SETTINGS_FILE } from "./settings.ts";
 * assert.equal(SETTINGS_FILE, ".paddock/settings.json");
 * ```
 */
export const SETTINGS_FILE = ".paddock/settings.json";

/**
 * The settings file path for a workspace root.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { settingsPath } from "./settings.ts";
 * assert.equal(settingsPath("/work/project"), "/work/project/.paddock/settings.json");
 * ```
 */
export function settingsPath(root: string): string {
  return join(root, SETTINGS_FILE);
}

/**
 * Reads settings; a missing file gives `{}`, a malformed one throws with the path.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { loadSettings } from "./settings.ts";
 * assert.equal(Object.keys(loadSettings("/nonexistent/settings.json")).length, 0);
 * ```
 */
export function loadSettings(path: string): Settings {
  let text: string;
  try {
    text = Deno.readTextFileSync(path);
  } catch (err) {
    // missing, or not readable under the granted permissions (the start-up check says so)
    if (err instanceof Deno.errors.NotFound || err instanceof Deno.errors.NotCapable) return {};
    throw err;
  }
  return parseSettings(text, path);
}

/**
 * Parses a settings file's text; throws a TypeError naming `path` when malformed.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { parseSettings } from "./settings.ts";
 * assert.equal(parseSettings('{"model": "m"}', "s.json").model, "m");
 * assert.throws(() => parseSettings("[]", "s.json"), /Cannot read settings "s.json"/);
 * ```
 */
export function parseSettings(text: string, path: string): Settings {
  try {
    const value = JSON.parse(text);
    if (value === null || typeof value !== "object" || Array.isArray(value)) {
      throw new TypeError("the top level must be an object");
    }
    return value as Settings;
  } catch (err) {
    throw new TypeError(`Cannot read settings "${path}": ${(err as Error).message}`);
  }
}

/**
 * Writes settings atomically (temp file, rename).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { loadSettings, saveSettings, settingsPath } from "./settings.ts";
 * const root = await Deno.makeTempDir();
 * saveSettings(settingsPath(root), { model: "qwen3", sandbox: true });
 * assert.equal(loadSettings(settingsPath(root)).model, "qwen3");
 * await Deno.remove(root, { recursive: true });
 * ```
 */
export function saveSettings(path: string, settings: Settings): void {
  Deno.mkdirSync(dirname(path), { recursive: true });
  const tmp = `${path}.${crypto.randomUUID().slice(0, 8)}.tmp`;
  Deno.writeTextFileSync(tmp, JSON.stringify(settings, null, 2) + "\n");
  Deno.renameSync(tmp, path);
}

/** Name of the user's own settings file inside {@link userConfigDir}. */
export const USER_SETTINGS_FILE = "settings.json";

/**
 * The user's Paddock folder: `$XDG_CONFIG_HOME/paddock`, else `$HOME/.config/paddock`;
 * undefined when neither variable is set. What lives here (user settings, trust records)
 * is trusted, so it is outside every workspace and hidden inside the OS sandbox.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { userConfigDir } from "./settings.ts";
 * assert.equal(userConfigDir({ HOME: "/home/ada" }), "/home/ada/.config/paddock");
 * assert.equal(userConfigDir({ XDG_CONFIG_HOME: "/cfg", HOME: "/home/ada" }), "/cfg/paddock");
 * assert.equal(userConfigDir({}), undefined);
 * ```
 */
export function userConfigDir(env: Readonly<Record<string, string | undefined>>): string | undefined {
  const xdg = env.XDG_CONFIG_HOME;
  if (xdg && xdg.startsWith("/")) return join(xdg, "paddock");
  return env.HOME ? join(env.HOME, ".config", "paddock") : undefined;
}

/**
 * The user's own settings file (`<userConfigDir>/settings.json`), or undefined without a home.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { userSettingsPath } from "./settings.ts";
 * assert.equal(userSettingsPath({ HOME: "/home/ada" }), "/home/ada/.config/paddock/settings.json");
 * ```
 */
export function userSettingsPath(env: Readonly<Record<string, string | undefined>>): string | undefined {
  const dir = userConfigDir(env);
  return dir ? join(dir, USER_SETTINGS_FILE) : undefined;
}

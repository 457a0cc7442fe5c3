/**
 * The project's settings file, `.paddock/settings.json` in the first
 * workspace root. Flags override env, env overrides the file.
 *
 * @module
 */
import { dirname, join } from "node:path";
import type { PermissionMode } from "../permissions/modes.ts";
import type { PermissionRules } from "../permissions/rules.ts";

/** What the settings file holds. Unknown keys are kept as they are. */
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
  /**
   * Index the workspace for Glob while the model thinks (`run`, `chat`; see
   * `RuntimeOptions.indexAhead`). Default true.
   */
  indexAhead?: boolean;
  /** Hook commands by event (see `src/runtime/command_hooks.ts`). */
  hooks?: Record<string, unknown>;
  /** Other settings. */
  [key: string]: unknown;
}

/** Relative location of the settings file inside the first root. */
export const SETTINGS_FILE = ".paddock/settings.json";

/** The settings file path for a workspace root. */
export function settingsPath(root: string): string {
  return join(root, SETTINGS_FILE);
}

/**
 * Reads settings; a missing file gives `{}`, a malformed one throws with the path.
 *
 * @example
 * ```ts
 * import { loadSettings } from "./settings.ts";
 * console.assert(Object.keys(loadSettings("/nonexistent/settings.json")).length === 0);
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

/** Writes settings atomically (temp file, rename). */
export function saveSettings(path: string, settings: Settings): void {
  Deno.mkdirSync(dirname(path), { recursive: true });
  const tmp = `${path}.${crypto.randomUUID().slice(0, 8)}.tmp`;
  Deno.writeTextFileSync(tmp, JSON.stringify(settings, null, 2) + "\n");
  Deno.renameSync(tmp, path);
}

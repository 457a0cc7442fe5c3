/**
 * Every flag and command of `paddock`, in one table. The `node:util`
 * `parseArgs` configuration, each command's help text, the overview and the
 * types of the parsed values are all generated from it, so a flag is written
 * down once. This module imports nothing at start-up (`node:util` is loaded
 * by {@link parseFlags}), so `paddock --help` and `paddock <command> --help`
 * need nothing else.
 *
 * @module
 */
import { UsageError } from "./command.ts";

/** One command-line flag. */
export interface Flag {
  /** `string` takes a value; `boolean` is a switch. */
  readonly type: "string" | "boolean";
  /** Repeatable: the values are collected into an array. Default false. */
  readonly multiple?: boolean;
  /** The value's placeholder in the help, e.g. `<dir>` (string flags). */
  readonly value?: string;
  /** The help line; a further line continues it under the same column. */
  readonly help: string | readonly string[];
}

/** Flags by name (without the leading `--`). */
export type FlagTable = Readonly<Record<string, Flag>>;

/** The value `parseArgs` gives for one flag. */
export type FlagValue<F extends Flag> = F["type"] extends "boolean" ? boolean
  : F["multiple"] extends true ? string[]
  : string;

/** The values `parseArgs` gives for a table: every flag optional. */
export type FlagValues<T extends FlagTable> = { -readonly [K in keyof T]?: FlagValue<T[K]> };

/** Flags of every command that builds a runtime. */
export const RUNTIME_FLAGS = {
  root: {
    type: "string",
    multiple: true,
    value: "<dir>",
    help: "Workspace root (repeatable; default: the current directory)",
  },
  cwd: { type: "string", value: "<dir>", help: "Initial working directory (default: the first root)" },
  "permission-mode": {
    type: "string",
    value: "<mode>",
    help: "default | acceptEdits | plan | bypassPermissions | dontAsk",
  },
  allow: {
    type: "string",
    multiple: true,
    value: "<rule>",
    help: "Allow rule, e.g. 'Bash(git status)' (repeatable)",
  },
  deny: {
    type: "string",
    multiple: true,
    value: "<rule>",
    help: "Deny rule, e.g. 'Read(/etc/**)' (repeatable)",
  },
  ask: { type: "string", multiple: true, value: "<rule>", help: "Rule that always asks (repeatable)" },
  confirm: {
    type: "string",
    value: "<preset>",
    help: [
      "What asks once no rule or mode decided: none (always confirm) | safe (auto-approve",
      "reads; the default) | all (auto-approve everything but protected paths and rules)",
    ],
  },
  "allowed-tools": { type: "string", value: "<a,b>", help: "Tools allowed without asking" },
  "disallowed-tools": { type: "string", value: "<a,b>", help: "Tools left out entirely" },
  sandbox: {
    type: "boolean",
    help: "Run Bash inside the OS sandbox (bubblewrap on Linux, sandbox-exec on macOS; the default)",
  },
  "no-sandbox": {
    type: "boolean",
    help: [
      'Run Bash outside the OS sandbox, with only Deno\'s own checks (also: "sandbox": false',
      "in ~/.config/paddock/settings.json; a project's settings cannot turn it off)",
    ],
  },
  "allow-unsandboxed-commands": {
    type: "boolean",
    help: [
      "Let a Bash call ask to run outside the sandbox (dangerouslyDisableSandbox); such a call",
      'always asks, in every mode (also: "allowUnsandboxedCommands": true in user settings)',
    ],
  },
  "allow-host": {
    type: "string",
    multiple: true,
    value: "<host>",
    help: "Host the web tools may reach (repeatable; '*' for any)",
  },
  "pass-env": {
    type: "string",
    multiple: true,
    value: "<name>",
    help: [
      "Pass this environment variable to Bash, hooks and MCP servers (repeatable; also",
      '"passEnv" in user settings); Paddock\'s model and search keys never pass',
    ],
  },
  "output-dir": {
    type: "string",
    value: "<dir>",
    help: "Where truncated outputs and task logs go (default: a temp folder)",
  },
  "mcp-config": {
    type: "string",
    value: "<file>",
    help: "MCP servers file (default: .mcp.json in the first root)",
  },
  tools: {
    type: "string",
    multiple: true,
    value: "<module>",
    help: "Also register the tools a module exports (default export or 'tools'; repeatable)",
  },
  quiet: { type: "boolean", help: "Do not print the start-up permission report" },
} as const satisfies FlagTable;

/** The values of {@link RUNTIME_FLAGS}. */
export type RuntimeFlagValues = FlagValues<typeof RUNTIME_FLAGS>;

/** Flags of the agent commands (`run`, `chat`). */
export const MODEL_FLAGS = {
  model: {
    type: "string",
    value: "<name>",
    help: `Model name (default: PADDOCK_MODEL, then "model" in .paddock/settings.json)`,
  },
  "base-url": {
    type: "string",
    value: "<url>",
    help: [
      `OpenAI-compatible endpoint (default: OPENAI_BASE_URL, then "baseUrl" in settings,`,
      "then https://api.openai.com/v1 when OPENAI_API_KEY is set)",
    ],
  },
  "max-turns": { type: "string", value: "<n>", help: "Most model turns per prompt (default 50)" },
  "max-tokens": {
    type: "string",
    value: "<n>",
    help: "Token budget per prompt: no new turn once it is used up",
  },
  "no-stream": {
    type: "boolean",
    help: "Ask for whole answers instead of streamed ones (for endpoints that stream badly)",
  },
  json: { type: "boolean", help: "Print the event stream as JSON lines on stdout" },
} as const satisfies FlagTable;

/** The values of the agent commands' flags. */
export type AgentFlagValues = FlagValues<typeof MODEL_FLAGS> & RuntimeFlagValues;

/** A titled group of flags in a command's help. */
export interface FlagSection {
  /** The heading, e.g. `Runtime options`. */
  readonly title: string;
  /** The flags. */
  readonly flags: FlagTable;
}

/** What `paddock <name> --help` says, and which flags the command takes. */
export interface CommandSpec {
  /** One line for the overview. */
  readonly summary: string;
  /** The usage lines. */
  readonly usage: readonly string[];
  /** What the command does (paragraphs). */
  readonly about: string;
  /** Its flags, section by section; parseArgs gets them all. */
  readonly sections: readonly FlagSection[];
  /** Text after the flags. */
  readonly notes?: string;
}

const RUNTIME_SECTION = { title: "Runtime options", flags: RUNTIME_FLAGS } as const;
const MODEL_SECTION = { title: "Model options", flags: MODEL_FLAGS } as const;

/** The subcommands, in the order the overview lists them. */
export const COMMANDS = {
  tools: {
    summary: "List the tools, or print their OpenAI-format definitions with --json",
    usage: ["paddock tools [--json] [runtime options]"],
    about: `Lists every enabled tool with its side-effect class. With --json, prints the
definitions exactly as they are sent to a chat-completions endpoint.`,
    sections: [
      {
        title: "Options",
        flags: { json: { type: "boolean", help: "Print the OpenAI-format tool definitions" } },
      },
      RUNTIME_SECTION,
    ],
  },
  perms: {
    summary: "Print the least-privilege 'deno run' line for the enabled tools",
    usage: ["paddock perms [--model-host <host:port>] [--json] [runtime options] [-- <command> ...]"],
    about: `Computes the minimal Deno permission flags for the enabled tools, workspace
roots and allowed hosts, and prints the 'deno run' line that grants exactly
those. Arguments after -- are appended to the line (default: tools).`,
    sections: [
      {
        title: "Options",
        flags: {
          "model-host": {
            type: "string",
            value: "<host:port>",
            help: "The model endpoint's host (added to --allow-net)",
          },
          entry: { type: "string", value: "<path|url>", help: "Entry point to print (default: this cli.ts)" },
          json: { type: "boolean", help: "Print {flags, perTool} as JSON" },
        },
      },
      RUNTIME_SECTION,
    ],
  },
  exec: {
    summary: "Run one tool call (exec <Tool> '<json>'), or JSON lines from stdin (exec -)",
    usage: ["paddock exec <Tool> ['<json input>'] [options]", "paddock exec - [options] < calls.jsonl"],
    about: `Runs tool calls through the whole pipeline: validation, permission decision,
hooks, execution with timeout, truncation.

With a tool name, runs one call and prints the result text (or the whole
result with --json). With '-', reads JSON lines {"tool": "...", "input": {...}}
from stdin and runs them in order in one session, so read-before-write and
background tasks carry across calls; prints one JSON result per line.

Exit codes: 0 every call succeeded, 1 a tool call failed, 2 usage error.`,
    sections: [
      {
        title: "Options",
        flags: {
          json: { type: "boolean", help: "Print the structured result as JSON" },
          timeout: { type: "string", value: "<ms>", help: "Time limit per call" },
        },
      },
      RUNTIME_SECTION,
    ],
  },
  run: {
    summary: "Run the agent on one prompt against an OpenAI-compatible endpoint",
    usage: [`paddock run "<prompt>" [options]`, `echo "<prompt>" | paddock run [options]`],
    about: `Runs the agent loop on one prompt: the model calls the built-in tools under
the permission mode and rules until it answers without a tool call.

Configuration, first found wins: flags, then env (PADDOCK_MODEL,
OPENAI_BASE_URL, OPENAI_API_KEY), then .paddock/settings.json.
Exit codes: 0 done, 1 error or limit reached, 2 usage or configuration error,
130 interrupted.`,
    sections: [MODEL_SECTION, RUNTIME_SECTION],
  },
  chat: {
    summary: "Chat with the agent: one prompt per line, the conversation carries over",
    usage: ["paddock chat [options]"],
    about: `Reads prompts line by line (from the terminal or a pipe) and runs the agent
loop on each, keeping the conversation. Commands: /clear starts over, /exit
quits (so does end of input, Ctrl-D). Ctrl-C stops the current turn and
returns to the prompt; Ctrl-C again (or at the prompt) quits.`,
    sections: [MODEL_SECTION, RUNTIME_SECTION],
  },
  mcp: {
    summary: "Serve Paddock's sandboxed tools to any MCP client (stdio, or HTTP with --http)",
    usage: ["paddock mcp [--http [--port <n>]] [runtime options]"],
    about: `Serves the enabled tools over the Model Context Protocol. Every call runs
through Paddock's runner: the permission mode, rules and sandbox of this
process apply, and tool annotations tell the client each tool's side-effect
class. Calls that need confirmation are asked through the client when it
supports MCP elicitation, and refused otherwise (allow them with --allow,
--allowed-tools or --permission-mode). AskUserQuestion and ExitPlanMode are
asked through elicitation too, and not listed to clients without it.

MCP servers are proxied only when --mcp-config names a file (a project's
.mcp.json is not read here, so a config that starts 'paddock mcp' cannot loop).`,
    sections: [
      {
        title: "Options",
        flags: {
          http: {
            type: "boolean",
            help: "Serve streamable HTTP at http://127.0.0.1:<port>/mcp instead of stdio",
          },
          port: {
            type: "string",
            value: "<n>",
            help: "Port for --http (default: 0, a free port; the URL is printed on stderr)",
          },
        },
      },
      RUNTIME_SECTION,
    ],
    notes: `Client configuration (.mcp.json, Claude Desktop's claude_desktop_config.json):
  {"mcpServers": {"paddock": {"command": "paddock",
    "args": ["mcp", "--root", "/path/to/project", "--permission-mode", "acceptEdits"]}}}`,
  },
  sandbox: {
    summary: "Probe the Bash sandbox on this machine (sandbox check) and print what holds",
    usage: ["paddock sandbox check [--json]"],
    about: `Runs the sandbox's escape probes on this machine: each starts a sandboxed
command that tries to break out (write outside the workspace, plant a git hook,
mount, reach the host's /tmp, read a credential store, fork without limit…)
and reports whether the sandbox held. Exit codes: 0 every probe passed, 1 a
probe failed or the sandbox cannot start, 2 usage error.`,
    sections: [
      {
        title: "Options",
        flags: { json: { type: "boolean", help: "Print the probe rows as JSON" } },
      },
    ],
  },
  trust: {
    summary: "Show what this project's settings and .mcp.json would enable, and trust them",
    usage: ["paddock trust [--root <dir>] [--json]", "paddock trust --revoke [--root <dir>]"],
    about: `A project's .paddock/settings.json and .mcp.json may have been written by
someone else. Until you trust them, their hooks, MCP servers, allow rules,
permission mode, allowed hosts, base URL and other widening settings are
ignored (deny and ask rules and the model always apply). This command lists
what they would enable and records your trust in exactly that content, in
~/.config/paddock/trusted.json (or $XDG_CONFIG_HOME/paddock); any change to
either file asks again. A project can never set bypassPermissions or turn the
sandbox off, trusted or not.`,
    sections: [
      {
        title: "Options",
        flags: {
          root: { type: "string", value: "<dir>", help: "The project (default: the current directory)" },
          revoke: { type: "boolean", help: "Remove the trust record" },
          json: { type: "boolean", help: "Print what was trusted as JSON" },
        },
      },
    ],
  },
} as const satisfies Record<string, CommandSpec>;

/** A subcommand's name. */
export type CommandName = keyof typeof COMMANDS;

type Sections<N extends CommandName> = (typeof COMMANDS)[N]["sections"][number];
type UnionToIntersection<U> = (U extends unknown ? (x: U) => void : never) extends (x: infer I) => void ? I
  : never;

/** The parsed flag values of command `N`: the flags of all its sections. */
export type CommandFlagValues<N extends CommandName> = UnionToIntersection<
  Sections<N> extends infer S ? S extends FlagSection ? FlagValues<S["flags"]> : never : never
>;

/**
 * Whether `name` is a subcommand.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { isCommandName } from "./flags.ts";
 * assert.ok(isCommandName("exec") && !isCommandName("frobnicate"));
 * ```
 */
export function isCommandName(name: string): name is CommandName {
  return Object.hasOwn(COMMANDS, name);
}

/** Every flag command `name` takes, as one table. */
export function commandFlags(name: CommandName): FlagTable {
  return Object.assign({}, ...COMMANDS[name].sections.map((s: FlagSection) => s.flags));
}

/** The left column of the flag lines: two spaces, the flag and its value, padded to this. */
const FLAG_COLUMN = 27;

function flagLabel(name: string, flag: Flag): string {
  return flag.value ? `--${name} ${flag.value}` : `--${name}`;
}

/** The help lines of one section. */
function sectionText(section: FlagSection, column: number): string {
  const lines = [`${section.title}:`];
  for (const [name, flag] of Object.entries(section.flags)) {
    const [first, ...more] = typeof flag.help === "string" ? [flag.help] : flag.help;
    lines.push(`  ${flagLabel(name, flag).padEnd(column)}${first}`);
    for (const line of more) lines.push(`  ${" ".repeat(column)}${line}`);
  }
  return lines.join("\n");
}

/**
 * The help text of a command, generated from {@link COMMANDS}.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { helpText } from "./flags.ts";
 * const help = helpText("exec");
 * assert.ok(help.startsWith("Usage: paddock exec") && help.includes("  --timeout <ms>"));
 * ```
 */
export function helpText(name: CommandName): string {
  const spec: CommandSpec = COMMANDS[name];
  const labels = spec.sections.flatMap((s) => Object.entries(s.flags).map(([n, f]) => flagLabel(n, f)));
  const column = Math.max(FLAG_COLUMN, ...labels.map((l) => l.length + 3));
  return [
    spec.usage.map((u, i) => `${i === 0 ? "Usage: " : "       "}${u}`).join("\n"),
    spec.about,
    ...spec.sections.map((s) => sectionText(s, column)),
    ...(spec.notes ? [spec.notes] : []),
  ].join("\n\n");
}

/**
 * What `paddock --help` prints: the commands and their summaries.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { overviewText } from "./flags.ts";
 * assert.ok(/^  exec +Run one tool call/m.test(overviewText()));
 * ```
 */
export function overviewText(): string {
  const names = Object.keys(COMMANDS) as CommandName[];
  const width = Math.max(...names.map((n) => n.length));
  return [
    "paddock: a sandboxed agent runtime for Deno",
    "",
    "Usage: paddock <command> [options]",
    "",
    "Commands:",
    ...names.map((n) => `  ${n.padEnd(width)}  ${COMMANDS[n].summary}`),
    "",
    "Run 'paddock <command> --help' for a command's options.",
    "Exit codes: 0 ok, 1 tool error, 2 usage error.",
  ].join("\n");
}

/** The options of {@link parseFlags}. */
export interface ParseFlagsOptions {
  /** Refuse unknown flags. Default true; `perms` reads another command's flags leniently. */
  strict?: boolean;
}

/**
 * Parses `args` against command `name`'s flags. Unknown flags, missing values
 * and values given to switches throw {@link UsageError} naming the flag.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { parseFlags } from "./flags.ts";
 * const { values, positionals } = await parseFlags("exec", ["Read", "--root", "/a", "--root", "/b", "--json"]);
 * assert.ok(values.root?.length === 2 && values.json === true && positionals[0] === "Read");
 * ```
 */
export async function parseFlags<N extends CommandName>(
  name: N,
  args: readonly string[],
  options: ParseFlagsOptions = {},
): Promise<{ values: CommandFlagValues<N>; positionals: string[] }> {
  // node:util is a third of what a help screen would cost over an empty run: it loads here
  const { parseArgs } = await import("node:util");
  const table = commandFlags(name);
  const config: Record<string, { type: "string" | "boolean"; multiple?: boolean }> = {};
  for (const [flag, { type, multiple }] of Object.entries(table)) {
    config[flag] = multiple ? { type, multiple } : { type };
  }
  try {
    const parsed = parseArgs({
      args: [...args],
      options: config,
      allowPositionals: true,
      strict: options.strict ?? true,
    });
    return { values: parsed.values as CommandFlagValues<N>, positionals: parsed.positionals };
  } catch (err) {
    throw usageErrorOf(err, table);
  }
}

/** Rewrites parseArgs' errors (`ERR_PARSE_ARGS_*`) as one-line usage errors. */
function usageErrorOf(err: unknown, table: FlagTable): unknown {
  const code = (err as { code?: string }).code;
  const message = (err as Error).message ?? "";
  const flag = message.match(/'(-[^' ]*)/)?.[1] ?? "";
  if (code === "ERR_PARSE_ARGS_UNKNOWN_OPTION") {
    const near = nearestFlag(flag.replace(/^-+/, "").split("=")[0], Object.keys(table));
    return new UsageError(`unknown flag "${flag}"${near ? `: did you mean "--${near}"?` : ""}`);
  }
  if (code === "ERR_PARSE_ARGS_INVALID_OPTION_VALUE") {
    const name = flag.replace(/^-+/, "");
    const spec = table[name];
    if (spec?.type === "boolean") return new UsageError(`flag "--${name}" takes no value`);
    return new UsageError(`flag "--${name}" needs a value${spec?.value ? ` ${spec.value}` : ""}`);
  }
  if (code?.startsWith("ERR_PARSE_ARGS_")) return new UsageError(message);
  return err;
}

/** The known flag closest to `typed` (at most two edits away, or a prefix of it), if any. */
function nearestFlag(typed: string, names: readonly string[]): string | undefined {
  let best: string | undefined;
  let bestDistance = 3;
  for (const name of names) {
    const d = name.startsWith(typed) && typed.length >= 3 ? 1 : editDistance(typed, name);
    if (d < bestDistance) [best, bestDistance] = [name, d];
  }
  return best;
}

function editDistance(a: string, b: string): number {
  let prev = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i++) {
    const row = [i];
    for (let j = 1; j <= b.length; j++) {
      row[j] = Math.min(prev[j] + 1, row[j - 1] + 1, prev[j - 1] + (a[i - 1] === b[j - 1] ? 0 : 1));
    }
    prev = row;
  }
  return prev[b.length];
}

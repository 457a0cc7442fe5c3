/**
 * Agent types for the Agent tool: Markdown files with a frontmatter block
 * (`name`, `description`, `tools`, `model`) whose body is the system prompt,
 * read from `<root>/.paddock/agents/*.md`, plus a built-in general-purpose type.
 *
 * The frontmatter is a flat list of `key: value` lines (a value may be a
 * `[a, b]` list or `- item` lines). A small parser is enough for that, so no
 * YAML dependency is taken.
 *
 * @module
 */
import { join } from "node:path";
import { InvalidInputError } from "../errors.ts";

/**
 * Folder of agent type files, relative to a workspace root.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { join } from "node:path";
 * import { AGENT_TYPES_DIR } from "./agent_types.ts";
 * assert.equal(
 *   join("/work/project", AGENT_TYPES_DIR, "reviewer.md"),
 *   "/work/project/.paddock/agents/reviewer.md",
 * );
 * ```
 */
export const AGENT_TYPES_DIR = ".paddock/agents";

/**
 * One agent type.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { type AgentType, parseAgentType } from "./agent_types.ts";
 * const reviewer: AgentType = parseAgentType(
 *   "---\nname: reviewer\ndescription: Reviews a diff\ntools: Read, Grep\n---\nReview the code.",
 * );
 * assert.deepEqual(reviewer.tools, ["Read", "Grep"]);
 * ```
 */
export interface AgentType {
  /** Name the model passes as `subagent_type`. */
  name: string;
  /** When to use it, shown to the model. */
  description: string;
  /** Tools it may use; undefined for every tool of the parent except Agent. `Agent` in the list allows nesting. */
  tools?: string[];
  /** Model to use; undefined or `inherit` for the parent's. */
  model?: string;
  /** Its system prompt. */
  systemPrompt: string;
  /** The file it came from, when not built in. */
  source?: string;
}

/**
 * The built-in type: every tool but Agent, the parent's model.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { GENERAL_PURPOSE } from "./agent_types.ts";
 * assert.equal(GENERAL_PURPOSE.name, "general-purpose");
 * ```
 */
export const GENERAL_PURPOSE: AgentType = Object.freeze({
  name: "general-purpose",
  description: "General agent for multi-step tasks: research, search, reading and changing code",
  systemPrompt: [
    "You are a sub-agent given one task by another agent. Work through it with your tools,",
    "then answer with a concise report of what you found or changed: that answer is all the",
    "other agent will see. Use absolute paths with file tools.",
  ].join(" "),
}) as AgentType;

/**
 * Parses one agent type file.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { parseAgentType } from "./agent_types.ts";
 * const t = parseAgentType(
 *   "---\nname: reviewer\ndescription: Reviews\ntools: Read, Grep\n---\nReview the code.",
 * );
 * assert.ok(t.name === "reviewer" && t.tools?.length === 2 && t.systemPrompt === "Review the code.");
 * ```
 */
export function parseAgentType(text: string, source?: string): AgentType {
  const where = source ? ` "${source}"` : "";
  const match = /^\uFEFF?---\r?\n([\s\S]*?)\r?\n---\r?\n?([\s\S]*)$/.exec(text);
  if (!match) {
    throw new InvalidInputError(`Agent type file${where} has no frontmatter: start it with a --- block`);
  }
  const fields: Record<string, string | string[]> = {};
  let listKey: string | undefined;
  for (const raw of match[1].split(/\r?\n/)) {
    const line = raw.trimEnd();
    if (line.trim() === "" || line.trimStart().startsWith("#")) continue;
    const item = /^\s*-\s+(.*)$/.exec(line);
    if (item && listKey) {
      (fields[listKey] as string[]).push(unquote(item[1]));
      continue;
    }
    const kv = /^([A-Za-z_][\w-]*)\s*:\s*(.*)$/.exec(line);
    if (!kv) {
      throw new InvalidInputError(`Agent type file${where} has a frontmatter line it cannot read: "${line}"`);
    }
    const [, key, value] = kv;
    if (value === "") {
      fields[key] = [];
      listKey = key;
    } else {
      fields[key] = unquote(value);
      listKey = undefined;
    }
  }
  const str = (k: string) => (typeof fields[k] === "string" ? (fields[k] as string) : undefined);
  const name = str("name");
  const description = str("description");
  if (!name || !description) {
    throw new InvalidInputError(`Agent type file${where} needs "name" and "description" in its frontmatter`);
  }
  const toolsField = fields.tools;
  const tools = toolsField === undefined
    ? undefined
    : (Array.isArray(toolsField) ? toolsField : toolsField.replace(/^\[|\]$/g, "").split(","))
      .map((t) => unquote(t.trim())).filter(Boolean);
  const model = str("model");
  return {
    name,
    description,
    ...(tools && !(tools.length === 1 && tools[0] === "*") ? { tools } : {}),
    ...(model && model !== "inherit" ? { model } : {}),
    systemPrompt: match[2].trim(),
    ...(source ? { source } : {}),
  };
}

/**
 * The built-in type plus every `*.md` in `<root>/.paddock/agents` (a file may
 * replace the built-in by using its name). A missing folder gives the built-in alone.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { loadAgentTypes } from "./agent_types.ts";
 * assert.equal(loadAgentTypes("/nonexistent")[0].name, "general-purpose");
 * ```
 */
export function loadAgentTypes(root: string): AgentType[] {
  const dir = join(root, AGENT_TYPES_DIR);
  const types = new Map<string, AgentType>([[GENERAL_PURPOSE.name, GENERAL_PURPOSE]]);
  let entries: Deno.DirEntry[];
  try {
    entries = [...Deno.readDirSync(dir)];
  } catch (err) {
    // no folder, or no permission to read it: the built-in type alone
    if (err instanceof Deno.errors.NotFound || err instanceof Deno.errors.NotCapable) {
      return [...types.values()];
    }
    throw err;
  }
  for (
    const e of entries.filter((e) => e.isFile && e.name.endsWith(".md")).sort((a, b) =>
      a.name.localeCompare(b.name)
    )
  ) {
    const path = join(dir, e.name);
    const type = parseAgentType(Deno.readTextFileSync(path), path);
    types.set(type.name, type);
  }
  return [...types.values()];
}

function unquote(v: string): string {
  const t = v.trim();
  return /^(["']).*\1$/.test(t) ? t.slice(1, -1) : t;
}

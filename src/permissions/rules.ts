/**
 * Permission rules (`Bash(git status)`, `Bash(npm run:*)`, `Read(/etc/**)`,
 * `WebFetch(domain:example.com)`, `mcp__server`) and a pure evaluator.
 *
 * @module
 */
import { isAbsolute, resolve } from "node:path";

/** The rule lists of a policy. Deny wins over ask, ask over allow. */
export interface PermissionRules {
  /** Calls that run without asking. */
  allow?: readonly string[];
  /** Calls that are refused. */
  deny?: readonly string[];
  /** Calls that always ask. */
  ask?: readonly string[];
}

/** A parsed rule. */
export interface ParsedRule {
  /** Tool name, or an `mcp__server` prefix. */
  tool: string;
  /** The part in parentheses, if any. */
  content?: string;
}

/**
 * Parses `Tool` or `Tool(content)`.
 *
 * @example
 * ```ts
 * import { parseRule } from "./rules.ts";
 * console.assert(parseRule("Bash(npm run:*)").content === "npm run:*");
 * ```
 */
export function parseRule(rule: string): ParsedRule {
  const m = /^([^()]+)\((.*)\)$/s.exec(rule.trim());
  if (m) return { tool: m[1].trim(), content: m[2] };
  return { tool: rule.trim() };
}

/** What a rule's content is matched against for one call. */
export interface RuleSubject {
  /** Canonical tool name. */
  tool: string;
  /** The command (Bash), path (file tools), URL (WebFetch) or other subject. */
  value?: string;
  /** The session cwd, for relative path rules. */
  cwd?: string;
}

/** Derives the rule subject of a call from its input. */
export function ruleSubject(tool: string, input: unknown, cwd?: string): RuleSubject {
  const rec = (input ?? {}) as Record<string, unknown>;
  const value = rec.command ?? rec.file_path ?? rec.notebook_path ?? rec.url ?? rec.path ??
    rec.pattern ?? rec.query;
  return { tool, value: typeof value === "string" ? value : undefined, cwd };
}

/** True when `rule` covers the call described by `subject`. */
export function ruleMatches(rule: string, subject: RuleSubject): boolean {
  const parsed = parseRule(rule);
  if (!toolMatches(parsed.tool, subject.tool)) return false;
  if (parsed.content === undefined || parsed.content === "" || parsed.content === "*") return true;
  const value = subject.value;
  if (value === undefined) return false;
  const content = parsed.content;
  if (content.startsWith("domain:")) {
    try {
      const host = new URL(value).hostname;
      return globToRegExp(content.slice("domain:".length), false).test(host);
    } catch {
      return false;
    }
  }
  if (content.endsWith(":*")) return value.startsWith(content.slice(0, -2));
  if (isPathy(subject.tool) || content.startsWith("/") || content.startsWith("./")) {
    const base = subject.cwd ?? "/";
    const pattern = isAbsolute(content) ? content : resolve(base, content);
    const target = isAbsolute(value) ? value : resolve(base, value);
    return globToRegExp(pattern, true).test(target);
  }
  return globToRegExp(content, false).test(value);
}

/** Evaluates the rule lists for a call: the first list with a match decides. */
export function evaluateRules(
  rules: PermissionRules,
  subject: RuleSubject,
): { behavior: "allow" | "deny" | "ask"; rule: string } | undefined {
  for (const behavior of ["deny", "ask", "allow"] as const) {
    for (const rule of rules[behavior] ?? []) {
      if (ruleMatches(rule, subject)) return { behavior, rule };
    }
  }
  return undefined;
}

const PATH_TOOLS = new Set(["Read", "Write", "Edit", "NotebookEdit", "Glob", "Grep"]);

function isPathy(tool: string): boolean {
  return PATH_TOOLS.has(tool);
}

function toolMatches(ruleTool: string, tool: string): boolean {
  if (ruleTool === tool) return true;
  if (ruleTool.endsWith("*")) return tool.startsWith(ruleTool.slice(0, -1));
  // `mcp__server` covers every tool of that server
  if (ruleTool.startsWith("mcp__") && ruleTool.split("__").length === 2) {
    return tool.startsWith(`${ruleTool}__`);
  }
  return false;
}

/**
 * Turns a glob into a regular expression. `*` stays within a path segment
 * when `paths` is set, `**` crosses segments. Small and specific to rules, so
 * written here rather than pulling in a glob library.
 */
export function globToRegExp(glob: string, paths: boolean): RegExp {
  let re = "";
  for (let i = 0; i < glob.length; i++) {
    const c = glob[i];
    if (c === "*") {
      if (glob[i + 1] === "*") {
        i++;
        if (glob[i + 1] === "/") {
          i++;
          re += "(?:.*/)?";
        } else re += ".*";
      } else re += paths ? "[^/]*" : ".*";
    } else if (c === "?") re += paths ? "[^/]" : ".";
    else re += c.replace(/[.+^${}()|[\]\\]/g, "\\$&");
  }
  return new RegExp(`^${re}$`, "s");
}

/**
 * Permission rules (`Bash(git status)`, `Bash(npm run:*)`, `Read(/etc/**)`,
 * `WebFetch(domain:example.com)`, `mcp__server`) and a pure evaluator.
 *
 * @module
 */
import { isAbsolute, resolve } from "node:path";

/**
 * The rule lists of a policy. Deny wins over ask, ask over allow.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { createRuntime, type PermissionRules } from "../../mod.ts";
 * const rules: PermissionRules = { allow: ["Bash(echo:*)"], deny: ["Bash(rm:*)"] };
 * await using rt = createRuntime({ roots: [Deno.cwd()], rules });
 * assert.ok((await rt.run("Bash", { command: "echo hi" })).ok);
 * assert.equal((await rt.run("Bash", { command: "rm -rf build" })).error?.code, "permission_denied");
 * ```
 */
export interface PermissionRules {
  /** Calls that run without asking. */
  allow?: readonly string[];
  /** Calls that are refused. */
  deny?: readonly string[];
  /** Calls that always ask. */
  ask?: readonly string[];
}

/**
 * A parsed rule.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { type ParsedRule, parseRule } from "./rules.ts";
 * const rule: ParsedRule = parseRule("Bash(npm run:*)");
 * assert.deepEqual(rule, { tool: "Bash", content: "npm run:*" });
 * ```
 */
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
 * import assert from "node:assert/strict";
 * import { parseRule } from "./rules.ts";
 * assert.equal(parseRule("Bash(npm run:*)").content, "npm run:*");
 * ```
 */
export function parseRule(rule: string): ParsedRule {
  const m = /^([^()]+)\((.*)\)$/s.exec(rule.trim());
  if (m) return { tool: m[1].trim(), content: m[2] };
  return { tool: rule.trim() };
}

/**
 * What a rule's content is matched against for one call.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { ruleMatches, type RuleSubject } from "./rules.ts";
 * const subject: RuleSubject = { tool: "Read", value: "src/main.ts", cwd: "/w" };
 * assert.ok(ruleMatches("Read(/w/src/**)", subject));
 * ```
 */
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

/**
 * True when `rule` covers the call described by `subject`.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { ruleMatches } from "./rules.ts";
 * assert.ok(ruleMatches("Bash(npm run:*)", { tool: "Bash", value: "npm run test" }));
 * assert.ok(!ruleMatches("Bash(npm run:*)", { tool: "Bash", value: "npm install" }));
 * assert.ok(ruleMatches("Read(/etc/**)", { tool: "Read", value: "/etc/ssh/sshd_config" }));
 * ```
 */
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

/**
 * Evaluates the rule lists for a call: the first list with a match decides.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { evaluateRules } from "./rules.ts";
 * const rules = { allow: ["Bash(git:*)"], deny: ["Bash(git push:*)"] };
 * assert.equal(evaluateRules(rules, { tool: "Bash", value: "git push origin" })?.behavior, "deny");
 * assert.equal(evaluateRules(rules, { tool: "Bash", value: "git status" })?.behavior, "allow");
 * assert.equal(evaluateRules(rules, { tool: "Bash", value: "ls" }), undefined);
 * ```
 */
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

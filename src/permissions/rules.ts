/**
 * Permission rules (`Bash(git status)`, `Bash(npm run:*)`, `Read(/etc/**)`,
 * `WebFetch(domain:example.com)`, `mcp__server`) and a pure evaluator.
 *
 * @module
 */
import { isAbsolute, relative, resolve } from "node:path";
import {
  analyzeShellCommand,
  DYNAMIC,
  isPlainCommand,
  loadShellParser,
  type SimpleCommand,
} from "./shell.ts";
import { protectedPathOf } from "./protected_paths.ts";

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
  /**
   * The user's own allow rules (command line, user settings): the only rules that approve a file
   * tool's write to a protected path (`protected_paths.ts`); a project's rules never do.
   * @default {allow} (a library caller's rules are its own)
   */
  userAllow?: readonly string[];
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
 * assert.ok(!ruleMatches("Bash(npm run:*)", { tool: "Bash", value: "npm run-script x" }));
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
  // a Bash rule covers a command when it allows every simple command in it (judgeBashCommand)
  if (subject.tool === "Bash") return judgeBashCommand(value, { allow: [rule] }).behavior === "allow";
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
 * Evaluates the rule lists for a call: the first list with a match decides. A Bash command is
 * judged simple command by simple command ({@link judgeBashCommand}); its denial carries a
 * `reason` naming the command that decided.
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
): { behavior: "allow" | "deny" | "ask"; rule: string; reason?: string } | undefined {
  if (subject.tool === "Bash" && typeof subject.value === "string" && hasBashContentRules(rules)) {
    const judged = judgeBashCommand(subject.value, rules, { cwd: subject.cwd });
    if (judged.behavior === "none") return undefined;
    // a Bash denial says which simple command, or what could not be judged
    const reason = judged.behavior === "deny" ? `Denied: ${judged.reason}` : undefined;
    return { behavior: judged.behavior, rule: judged.rule ?? judged.reason, ...(reason ? { reason } : {}) };
  }
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

// ---------------------------------------------------------------------------------------------
// Bash rules (THREATS.md P5)

/**
 * The verdict of the rules on one Bash command. `none`: no rule decides, the
 * mode and preset do (a command that cannot be judged is never allowed by a rule).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { type BashJudgement, judgeBashCommand, loadBashJudge } from "./rules.ts";
 * const rules = { allow: ["Bash(git status:*)"] };
 * await loadBashJudge("git status; touch x", rules);
 * const j: BashJudgement = judgeBashCommand("git status; touch x", rules);
 * assert.equal(j.behavior, "none");
 * assert.equal(j.command, "touch x");
 * ```
 */
export interface BashJudgement {
  /** What the rules say. */
  behavior: "allow" | "deny" | "ask" | "none";
  /** The rule that decided (for allow, every rule used, comma-separated). */
  rule?: string;
  /** The simple command that decided (normalised; `…` for run-time values), if one did. */
  command?: string;
  /** Why, in words. */
  reason: string;
  /**
   * Files the command writes through output redirections (`>`, `>>`, `&>`, `>|`) and `tee`, as
   * written: each is a write of that path, as an Edit of it would be.
   */
  writes: string[];
}

/** Options of {@link judgeBashCommand}. */
export interface BashJudgeOptions {
  /**
   * The session cwd: a command that writes outside it, to an unknown file or to a protected path
   * (`protected_paths.ts`) is not allowed by a rule.
   * @default {undefined} (writes are not checked)
   */
  cwd?: string;
}

/**
 * Judges a Bash command against the rules, simple command by simple command
 * (`shell.ts` splits and normalises it). Deny: a bare `Bash` deny rule, or a
 * deny rule that matches — or might match — any simple command (including
 * `find -delete` as `rm`, `find -exec`, `xargs`, wrappers), or a command that
 * cannot be analysed or judged while any Bash deny rule exists. Ask: an ask
 * rule that matches any simple command. Allow: a bare `Bash` allow rule, or
 * every simple command allowed by some allow rule, nothing unjudgeable
 * (`eval`, `source`, `bash -c "$x"`, a program named by an expansion, a
 * variable that changes what runs), and, with `cwd`, no write outside it.
 * Otherwise `none`. Commands beyond plain words need {@link loadBashJudge}
 * first; before it they cannot be judged.
 *
 * Rule forms (Claude Code's): `Bash(git status:*)` and `Bash(git status *)` match `git status`
 * alone or followed by arguments (not `git statusx`); `Bash(npm test)` matches exactly;
 * `Bash(git diff*)` matches by wildcard. A program written as a path matches a rule by its base
 * name when it is in a system folder (`/usr/bin/git`); `./git` matches only rules naming
 * `./git`, but deny rules by base name always.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { judgeBashCommand } from "./rules.ts";
 * const rules = { allow: ["Bash(git status:*)"], deny: ["Bash(rm:*)"] };
 * assert.equal(judgeBashCommand("git status --short", rules).behavior, "allow");
 * assert.equal(judgeBashCommand("/bin/rm -rf x", rules).behavior, "deny");
 * ```
 */
export function judgeBashCommand(
  command: string,
  rules: PermissionRules,
  options: BashJudgeOptions = {},
): BashJudgement {
  const deny = bashRules(rules.deny);
  const ask = bashRules(rules.ask);
  const allow = bashRules(rules.allow);
  const bareDeny = deny.find((r) => r.content === undefined);
  if (bareDeny) {
    return { behavior: "deny", rule: bareDeny.rule, reason: `Denied by rule "${bareDeny.rule}"`, writes: [] };
  }
  const analysis = analyzeShellCommand(command);
  const bareAsk = ask.find((r) => r.content === undefined);
  const bareAllow = allow.find((r) => r.content === undefined);
  if ("error" in analysis) {
    const reason = `The command cannot be analysed: ${analysis.error}`;
    if (deny.length) {
      return {
        behavior: "deny",
        rule: deny[0].rule,
        reason: `${reason}, so deny rule "${deny[0].rule}" cannot be checked`,
        writes: [],
      };
    }
    if (bareAsk) return { behavior: "ask", rule: bareAsk.rule, reason, writes: [] };
    if (bareAllow) return { behavior: "allow", rule: bareAllow.rule, reason, writes: [] };
    return { behavior: "none", reason, writes: [] };
  }
  const { commands, writes, unjudgeable, opaque } = analysis;
  for (const cmd of commands) {
    for (const r of deny) {
      const m = Math.max(matchBash(r.content!, denyWords(cmd)), matchBash(r.content!, allowWords(cmd)));
      if (m === NO) continue;
      const text = show(cmd);
      const why = m === YES
        ? `"${text}" matches deny rule "${r.rule}"`
        : `"${text}" might match deny rule "${r.rule}" once its run-time values are known`;
      return { behavior: "deny", rule: r.rule, command: text, reason: why, writes };
    }
  }
  const unchecked = unjudgeable[0] ?? opaque[0];
  if (unchecked !== undefined && deny.length) {
    const rule = deny[0].rule;
    const reason =
      `The command cannot be judged statically (${unchecked}), so deny rule "${rule}" cannot be checked`;
    return { behavior: "deny", rule, reason, writes };
  }
  if (bareAsk) return { behavior: "ask", rule: bareAsk.rule, reason: `Rule "${bareAsk.rule}" asks`, writes };
  for (const cmd of commands) {
    const r = ask.find((r) =>
      r.content !== undefined &&
      Math.max(matchBash(r.content, denyWords(cmd)), matchBash(r.content, allowWords(cmd))) !== NO
    );
    if (r) {
      return {
        behavior: "ask",
        rule: r.rule,
        command: show(cmd),
        reason: `"${show(cmd)}" matches ask rule "${r.rule}"`,
        writes,
      };
    }
  }
  if (bareAllow) {
    return { behavior: "allow", rule: bareAllow.rule, reason: `Allowed by rule "${bareAllow.rule}"`, writes };
  }
  if (unjudgeable.length) {
    return {
      behavior: "none",
      reason: `The command cannot be judged statically: ${unjudgeable.join("; ")}`,
      writes,
    };
  }
  if (commands.length === 0) return { behavior: "none", reason: "The command runs no program", writes };
  const used: string[] = [];
  for (const cmd of commands) {
    const r = allow.find((r) => r.content !== undefined && matchBash(r.content, allowWords(cmd)) === YES);
    if (!r) {
      return {
        behavior: "none",
        command: show(cmd),
        reason: `"${show(cmd)}" is not allowed by any rule`,
        writes,
      };
    }
    if (!used.includes(r.rule)) used.push(r.rule);
  }
  const cwd = options.cwd;
  const outside = cwd === undefined ? undefined : writes.find((w) => !writesInside(w, cwd));
  if (outside !== undefined) {
    return {
      behavior: "none",
      reason: `The command writes "${outside.replaceAll(DYNAMIC, "…")}" outside the working folder`,
      writes,
    };
  }
  const guarded = cwd === undefined ? undefined : writes.find((w) => protectedPathOf(resolve(cwd, w), [cwd]));
  if (guarded !== undefined) {
    return { behavior: "none", reason: `The command writes the protected path "${guarded}"`, writes };
  }
  return {
    behavior: "allow",
    rule: used.join(", "),
    reason: `Allowed by rule "${used.join('", "')}"`,
    writes,
  };
}

/**
 * The files a Bash command writes through output redirections and `tee`, for
 * the decision to judge as Edits of those paths: each as written, with
 * {@link DYNAMIC} where only the run decides it (`> "$f"`, and every relative
 * target of a command that changes folder with `cd`, `pushd` or `popd`).
 * Undefined when the command cannot be analysed (see {@link loadBashJudge}).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { bashWrites, loadBashJudge } from "./rules.ts";
 * await loadBashJudge("echo x | tee a.txt > /dev/null", undefined);
 * assert.deepEqual(bashWrites("echo x | tee a.txt > /dev/null"), ["a.txt"]);
 * assert.deepEqual(bashWrites("git status"), []);
 * ```
 */
export function bashWrites(command: string): string[] | undefined {
  const analysis = analyzeShellCommand(command);
  if ("error" in analysis) return undefined;
  const moves = analysis.commands.some((c) => ["cd", "pushd", "popd"].includes(c.argv[0]));
  return analysis.writes.map((w) => moves && !isAbsolute(w) ? `${DYNAMIC}${w}` : w);
}

/**
 * Loads the shell parser when judging `command` needs it: a command beyond
 * plain words (its simple commands are judged against the rules, its
 * redirections as writes). Fails closed: if
 * the parser cannot load, such commands are judged unanalysable.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { judgeBashCommand, loadBashJudge } from "./rules.ts";
 * const rules = { deny: ["Bash(rm:*)"] };
 * await loadBashJudge("true && rm -rf x", rules);
 * assert.equal(judgeBashCommand("true && rm -rf x", rules).behavior, "deny");
 * ```
 */
export async function loadBashJudge(command: unknown, _rules?: PermissionRules): Promise<void> {
  if (typeof command !== "string" || isPlainCommand(command)) return;
  try {
    await loadShellParser();
  } catch {
    // judged as unanalysable: deny rules deny, nothing is allowed by a rule
  }
}

function hasBashContentRules(rules: PermissionRules): boolean {
  return [rules.deny, rules.ask, rules.allow].some((list) =>
    list?.some((r) => {
      const parsed = parseRule(r);
      return toolMatches(parsed.tool, "Bash") && parsed.content !== undefined && parsed.content !== "" &&
        parsed.content !== "*";
    })
  );
}

interface BashRule {
  rule: string;
  /** The content; undefined for a bare rule (`Bash`, `Bash()`, `Bash(*)`). */
  content?: string;
}

function bashRules(list: readonly string[] | undefined): BashRule[] {
  const out: BashRule[] = [];
  for (const rule of list ?? []) {
    const parsed = parseRule(rule);
    if (!toolMatches(parsed.tool, "Bash")) continue;
    const content = parsed.content?.trim();
    out.push({
      rule,
      content: content === undefined || content === "" || content === "*" ? undefined : content,
    });
  }
  return out;
}

const NO = 0;
const MAYBE = 1;
const YES = 2;

/**
 * The global options of programs whose rules name a subcommand (`git push`), skipped for deny and
 * ask rules so that `git -C . push` and `git --no-pager push` are still `git push`: those that
 * take a value as the next word; every other leading `-…` word is skipped alone. Allow rules see
 * the words as written, so options between a rule's words make it not match (the call asks).
 */
const GLOBAL_OPTIONS: Readonly<Record<string, ReadonlySet<string>>> = {
  git: new Set(["-C", "-c", "--git-dir", "--work-tree", "--namespace", "--config-env", "--super-prefix"]),
  npm: new Set(["--prefix", "-C", "-w", "--workspace", "--loglevel", "--userconfig"]),
};

/** The words deny and ask rules see: the program by its base name, its global options skipped. */
function denyWords(cmd: SimpleCommand): string[] {
  const takesValue = GLOBAL_OPTIONS[cmd.argv[0]];
  if (!takesValue) return cmd.argv;
  let i = 1;
  while (i < cmd.argv.length && cmd.argv[i].startsWith("-") && cmd.argv[i] !== "--") {
    i += takesValue.has(cmd.argv[i]) ? 2 : 1;
  }
  return [cmd.argv[0], ...cmd.argv.slice(i)];
}

/** The words allow and ask rules see: a program outside the system folders by its path. */
function allowWords(cmd: SimpleCommand): string[] {
  return cmd.path ? [cmd.path, ...cmd.argv.slice(1)] : cmd.argv;
}

function show(cmd: SimpleCommand): string {
  return allowWords(cmd).join(" ").replaceAll(DYNAMIC, "…");
}

/** Whether a rule's content matches a simple command: NO, MAYBE (a run-time value decides) or YES. */
function matchBash(content: string, words: readonly string[]): number {
  let prefix: string | undefined;
  if (content.endsWith(":*")) prefix = content.slice(0, -2);
  else if (content.endsWith(" *") && content.indexOf("*") === content.length - 1) {
    prefix = content.slice(0, -2);
  }
  if (prefix !== undefined) {
    const tokens = prefix.trim().split(/\s+/).filter((t) => t !== "");
    return matchTokens(tokens, words, true);
  }
  if (content.includes("*")) {
    const text = words.join(" ");
    if (globToRegExp(content, false).test(text)) return YES;
    if (!text.includes(DYNAMIC)) return NO;
    const known = text.slice(0, text.indexOf(DYNAMIC));
    const literal = content.slice(0, content.indexOf("*"));
    return known.startsWith(literal) || literal.startsWith(known) ? MAYBE : NO;
  }
  return matchTokens(content.trim().split(/\s+/), words, false);
}

function matchTokens(tokens: readonly string[], words: readonly string[], prefix: boolean): number {
  if (words.length < tokens.length || (!prefix && words.length !== tokens.length)) return NO;
  let result = YES;
  for (let i = 0; i < tokens.length; i++) {
    const rule = i === 0 ? programName(tokens[0], words[0]) : tokens[i];
    if (words[i] === rule) continue;
    if (!words[i].includes(DYNAMIC)) return NO;
    const [head] = words[i].split(DYNAMIC);
    if (!rule.startsWith(head)) return NO;
    result = MAYBE;
  }
  return result;
}

/** A rule naming `/bin/rm` matches the command `rm` (a path in a system folder). */
function programName(ruleProgram: string, word: string): string {
  if (ruleProgram === word || !ruleProgram.includes("/")) return ruleProgram;
  const base = ruleProgram.slice(ruleProgram.lastIndexOf("/") + 1);
  return /^\/(usr\/(local\/)?)?s?bin\//.test(ruleProgram) && base === word ? word : ruleProgram;
}

function writesInside(target: string, cwd: string): boolean {
  if (target.includes(DYNAMIC) || target.startsWith("~")) return false;
  const rel = relative(cwd, resolve(cwd, target));
  return rel !== ".." && !rel.startsWith("../") && !isAbsolute(rel);
}

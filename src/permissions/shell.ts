/**
 * Shell commands as the simple commands they run (THREATS.md P5). A command
 * is parsed by tree-sitter-bash (through web-tree-sitter, loaded on first need
 * by {@link loadShellParser}; a command of plain words needs no parser) and
 * split across `;` `&&` `||` `|` `&`, newlines, subshells, groups, command and
 * process substitution, here-documents, `if`/`while`/`for`/`case` bodies and
 * functions. Each simple command is normalised: leading assignments dropped,
 * quotes and backslashes resolved, `/usr/bin/rm` read as `rm`, and wrappers
 * (`command`, `builtin`, `exec`, `env`, `nice`, `nohup`, `timeout`, `time`,
 * `stdbuf`, `setsid`, `ionice`, `xargs`, `sudo`, `doas`, `busybox`) unwrapped
 * to the command they run; `find -exec` adds the command it runs and
 * `find -delete` an `rm`; `bash -c 'literal'` adds the literal's commands.
 * What cannot be judged statically is reported, not guessed.
 *
 * @module
 */

/** Stands for a word whose value is known only when the command runs (`$x`, `$(…)`, xargs' input). */
export const DYNAMIC = "\u0000";

/**
 * One simple command after normalisation.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { analyzeShellCommand, type SimpleCommand } from "./shell.ts";
 * const r = analyzeShellCommand("X=1 command /bin/rm -rf build");
 * assert.ok(!("error" in r));
 * const first: SimpleCommand = r.commands[0];
 * assert.deepEqual(first.argv, ["rm", "-rf", "build"]);
 * ```
 */
export interface SimpleCommand {
  /** The words, program first as its base name (`/bin/rm` → `rm`); {@link DYNAMIC} marks run-time values. */
  argv: string[];
  /** The program as written when it names a path outside the system folders (`./rm`), else absent. */
  path?: string;
  /** Why this command was added although not written as one (`find -delete`), if so. */
  derivedFrom?: string;
}

/**
 * What a command runs and writes, or why it cannot be judged.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { analyzeShellCommand, loadShellParser, type ShellAnalysis } from "./shell.ts";
 * await loadShellParser();
 * const r: ShellAnalysis = analyzeShellCommand("git status > out.txt");
 * assert.ok(!("error" in r) && r.writes[0] === "out.txt");
 * ```
 */
export type ShellAnalysis = {
  /** Every simple command, in source order (inner substitutions after their command). */
  commands: SimpleCommand[];
  /** Files written by output redirections and `tee` (as written; {@link DYNAMIC} where unknown). */
  writes: string[];
  /** Constructs that cannot be judged statically (`eval`, `bash -c "$x"`, …), in words. */
  unjudgeable: string[];
  /**
   * Programs that run another command this module does not unwrap (`strace`, `watch`, `su -c` …),
   * in words: a rule for the program itself may allow them, but no deny rule can see inside.
   */
  opaque: string[];
} | {
  /** Why the command could not be analysed (a syntax error, too long, the parser not loaded). */
  error: string;
  /** True when only the parser being unloaded stopped the analysis: {@link loadShellParser}. */
  needsParser?: boolean;
};

/** Longer commands are not parsed: they cannot be judged. */
export const MAX_COMMAND_CHARS = 1_000_000;
/** Parsing stops after this long and the command cannot be judged. */
export const PARSE_BUDGET_MS = 2_000;
/** How deep `bash -c '…'` literals are followed. */
const MAX_SCRIPT_DEPTH = 3;

interface TsNode {
  type: string;
  text: string;
  isNamed: boolean;
  startIndex: number;
  endIndex: number;
  children: (TsNode | null)[];
  parent: TsNode | null;
  childForFieldName(name: string): TsNode | null;
  childrenForFieldName(name: string): (TsNode | null)[];
}
interface TsParser {
  parse(
    input: string,
    old?: null,
    options?: { progressCallback?: (state: unknown) => boolean },
  ): { rootNode: TsNode & { hasError: boolean }; delete(): void } | null;
}

let parser: TsParser | undefined;
let loading: Promise<void> | undefined;

/**
 * Loads tree-sitter and the Bash grammar from their npm packages, once. Call
 * before {@link analyzeShellCommand} for commands beyond plain words.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { analyzeShellCommand, loadShellParser } from "./shell.ts";
 * await loadShellParser();
 * const r = analyzeShellCommand("git status; touch x");
 * assert.ok(!("error" in r) && r.commands.length === 2);
 * ```
 */
export function loadShellParser(): Promise<void> {
  loading ??= (async () => {
    const { Parser, Language } = await import("web-tree-sitter");
    const { BASH_GRAMMAR, TREE_SITTER } = await import("./_bash_grammar.js");
    // web-tree-sitter reads its wasm files by path, which needs read permission for the npm cache;
    // Deno gives them as compiled modules (`import source`) instead: tree-sitter's own through
    // Emscripten's `instantiateWasm`, the grammar through the Emscripten loader, which accepts a
    // compiled module (`init` keeps `module` as its Emscripten Module object).
    // deno-lint-ignore no-explicit-any
    const module: Record<string, any> = {
      instantiateWasm(
        imports: WebAssembly.Imports,
        done: (i: WebAssembly.Instance, m: WebAssembly.Module) => void,
      ) {
        // synchronous, so a failure rejects `init` instead of leaving it pending
        done(new WebAssembly.Instance(TREE_SITTER, imports), TREE_SITTER);
        return {};
      },
    };
    await Parser.init(module);
    const load = module.loadWebAssemblyModule;
    if (typeof load !== "function") throw new Error("web-tree-sitter no longer exposes its wasm loader");
    const marker = new Uint8Array(0);
    module.loadWebAssemblyModule = (binary: unknown, flags: unknown) =>
      load(binary === marker ? BASH_GRAMMAR : binary, flags);
    const bash = await Language.load(marker);
    const p = new Parser();
    p.setLanguage(bash);
    parser = p as unknown as TsParser;
  })();
  loading.catch(() => loading = undefined);
  return loading;
}

/**
 * True when the command is made of plain words only (letters, digits and
 * `_-./=:,@%+^`), which split on blanks without a parser.
 */
export function isPlainCommand(command: string): boolean {
  return /^[\w\-./=:,@%+^ \t]*$/.test(command);
}

/**
 * Splits and normalises a command. Synchronous: a command beyond plain words
 * needs {@link loadShellParser} first, else the result says `needsParser`.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { analyzeShellCommand } from "./shell.ts";
 * const r = analyzeShellCommand("timeout 5 nice -n 5 rm -rf x");
 * assert.ok(!("error" in r));
 * assert.deepEqual(r.commands.map((c) => c.argv[0]), ["rm"]);
 * ```
 */
export function analyzeShellCommand(command: string): ShellAnalysis {
  return analyze(command, 0);
}

interface Analysis {
  commands: SimpleCommand[];
  writes: string[];
  unjudgeable: string[];
  opaque: string[];
}

function analyze(command: string, depth: number): ShellAnalysis {
  // bash removes a backslash-newline before it splits words (`r\⏎m` is `rm`), except in single
  // quotes and quoted here-documents; tree-sitter reads it as a blank. Both readings are judged.
  if (!command.includes("\\\n")) return analyzeOnce(command, depth);
  const asWritten = analyzeOnce(command, depth);
  const joined = analyzeOnce(command.replaceAll("\\\n", ""), depth);
  if ("error" in asWritten) return asWritten;
  if ("error" in joined) return joined;
  return {
    commands: [...asWritten.commands, ...joined.commands],
    writes: [...new Set([...asWritten.writes, ...joined.writes])],
    unjudgeable: [...asWritten.unjudgeable, ...joined.unjudgeable],
    opaque: [...asWritten.opaque, ...joined.opaque],
  };
}

function analyzeOnce(command: string, depth: number): ShellAnalysis {
  if (command.length > MAX_COMMAND_CHARS) {
    return { error: `the command is longer than ${MAX_COMMAND_CHARS} characters` };
  }
  const out: Analysis = { commands: [], writes: [], unjudgeable: [], opaque: [] };
  if (isPlainCommand(command)) {
    const words = command.split(/[ \t]+/).filter((w) => w !== "").map((text) => plain(text));
    const assignments: string[] = [];
    while (words.length && isAssignment(words[0].text)) assignments.push(words.shift()!.text);
    checkAssignments(assignments, out, true);
    normalise(words, out, depth);
    return out;
  }
  if (!parser) return { error: "the shell parser is not loaded", needsParser: true };
  const deadline = Date.now() + PARSE_BUDGET_MS;
  let tree;
  try {
    tree = parser.parse(command, null, { progressCallback: () => Date.now() > deadline });
  } catch (err) {
    return { error: `the parser failed: ${err instanceof Error ? err.message : String(err)}` };
  }
  if (!tree) return { error: `parsing took longer than ${PARSE_BUDGET_MS} ms` };
  try {
    if (tree.rootNode.hasError) return { error: "the command has a syntax error" };
    walk(tree.rootNode, out, depth);
    return out;
  } catch (err) {
    return {
      error: `the command could not be analysed: ${err instanceof Error ? err.message : String(err)}`,
    };
  } finally {
    tree.delete();
  }
}

/** A resolved word: its text, whether part of it is known only at run time, whether it expands (glob, braces). */
interface Word {
  text: string;
  dynamic: boolean;
  pattern: boolean;
}

function plain(text: string): Word {
  return { text, dynamic: false, pattern: false };
}

function isAssignment(text: string): boolean {
  return /^[A-Za-z_][A-Za-z0-9_]*(\[[^\]]*\])?\+?=/.test(text);
}

/**
 * Variables a command may set for itself without asking: they change no
 * program's lookup, loading or configuration. Anything else (`PATH`,
 * `LD_PRELOAD`, `GIT_*`, `HOME`, `npm_config_*` …) makes the command unjudgeable.
 */
const SAFE_VARIABLES = new Set([
  "CI",
  "NODE_ENV",
  "DEBUG",
  "TZ",
  "LANG",
  "LANGUAGE",
  "LC_ALL",
  "LC_CTYPE",
  "LC_MESSAGES",
  "TERM",
  "NO_COLOR",
  "FORCE_COLOR",
  "RUST_LOG",
  "RUST_BACKTRACE",
  "COLUMNS",
  "LINES",
]);

/** Checks assignments; `forCommand` for prefix and `env` ones, else shell-local (standalone, `for`). */
function checkAssignments(texts: readonly string[], out: Analysis, forCommand: boolean): void {
  for (const text of texts) {
    const name = /^[A-Za-z_][A-Za-z0-9_]*/.exec(text)?.[0] ?? text;
    if (SAFE_VARIABLES.has(name)) continue;
    // a shell-local lower-case variable is seen by no program unless already exported
    if (!forCommand && /^[a-z_][a-z0-9_]*$/.test(name) && !name.includes("proxy")) continue;
    out.unjudgeable.push(`it sets the variable "${name}", which can change what a program runs`);
  }
}

// ---------------------------------------------------------------------------------------------
// the tree

const OUTPUT_REDIRECTS = new Set([">", ">>", "&>", "&>>", ">|", ">&", "<>", "&>|"]);
const HARMLESS_TARGETS = new Set(["/dev/null", "/dev/stdout", "/dev/stderr", "/dev/tty"]);

function walk(root: TsNode, out: Analysis, depth: number): void {
  const stack: TsNode[] = [root];
  while (stack.length) {
    const node = stack.pop()!;
    switch (node.type) {
      case "command":
        command(node, out, depth);
        break;
      case "declaration_command":
      case "unset_command": {
        const words = node.children.filter((c): c is TsNode => c !== null).map((c) =>
          !c.isNamed || c.type === "variable_assignment" || c.type === "variable_name"
            ? plain(c.text)
            : wordOf(c)
        );
        normalise(words, out, depth);
        break;
      }
      case "variable_assignment": {
        const parent = node.parent?.type === "variable_assignments" ? node.parent.parent : node.parent;
        if (parent && parent.type !== "command" && parent.type !== "declaration_command") {
          checkAssignments([node.text], out, false);
        }
        break;
      }
      case "for_statement": {
        const variable = node.childForFieldName("variable");
        if (variable) checkAssignments([`${variable.text}=`], out, false);
        break;
      }
      case "file_redirect":
        redirect(node, out);
        break;
    }
    const children = node.children;
    for (let i = children.length - 1; i >= 0; i--) {
      const child = children[i];
      if (child) stack.push(child);
    }
  }
}

function redirect(node: TsNode, out: Analysis): void {
  const op = node.children.find((c) => c && !c.isNamed && /[<>]/.test(c.type))?.type ?? "";
  if (!OUTPUT_REDIRECTS.has(op)) return;
  const destination = node.childForFieldName("destination") ??
    node.children.filter((c): c is TsNode => c !== null && c.isNamed && c.type !== "file_descriptor").at(-1);
  if (!destination) return;
  const word = wordOf(destination);
  // `>&2`, `2>&1`, `>&-` duplicate or close a descriptor
  if (!word.dynamic && (op === ">&" || op === "<>" || op === "&>") && /^(\d+|-)$/.test(word.text)) return;
  if (HARMLESS_TARGETS.has(word.text) || /^\/dev\/fd\/\d+$/.test(word.text)) return;
  addWrite(word, out);
}

function addWrite(word: Word, out: Analysis): void {
  if (word.dynamic || word.pattern) {
    out.unjudgeable.push(`it writes to a file named only at run time ("${display(word.text)}")`);
    out.writes.push(word.text);
  } else out.writes.push(word.text);
}

function command(node: TsNode, out: Analysis, depth: number): void {
  const assignments: string[] = [];
  const words: Word[] = [];
  for (const child of node.children) {
    if (!child || !child.isNamed) continue;
    if (child.type === "variable_assignment") {
      if (words.length === 0) assignments.push(child.text);
      else words.push(wordOf(child));
    } else if (child.type === "command_name") {
      const inner = child.children.find((c) => c?.isNamed) ?? child;
      words.push(inner === child ? wordOf(child) : wordOf(inner));
    } else if (child.type.endsWith("_redirect") || child.type === "comment") {
      continue;
    } else words.push(wordOf(child));
  }
  checkAssignments(assignments, out, true);
  normalise(words, out, depth);
}

function wordOf(node: TsNode): Word {
  switch (node.type) {
    case "word":
    case "command_name":
      return unquoted(node.text);
    case "number":
      return plain(node.text);
    case "raw_string":
      return plain(node.text.slice(1, -1));
    case "ansi_c_string":
      return ansiC(node.text.slice(2, -1));
    case "translated_string":
    case "string": {
      const start = node.type === "translated_string" ? node.startIndex + 2 : node.startIndex + 1;
      const end = node.endIndex - 1;
      let text = "";
      let dynamic = false;
      let at = start;
      for (const c of node.children) {
        if (!c || c.endIndex <= start || c.startIndex >= end) continue;
        if (c.startIndex > at) text += doubleQuoted(sourceSlice(node, at, c.startIndex));
        if (c.type === "string_content" || !c.isNamed) text += doubleQuoted(c.text);
        else if (c.type === "string") {
          const inner = wordOf(c);
          text += inner.text;
          dynamic ||= inner.dynamic;
        } else {
          text += DYNAMIC;
          dynamic = true;
        }
        at = c.endIndex;
      }
      if (at < end) text += doubleQuoted(sourceSlice(node, at, end));
      return { text, dynamic, pattern: false };
    }
    case "concatenation": {
      const parts = node.children.filter((c): c is TsNode => c !== null).map(wordOf);
      return {
        text: parts.map((p) => p.text).join(""),
        dynamic: parts.some((p) => p.dynamic),
        pattern: parts.some((p) => p.pattern),
      };
    }
    default:
      // $x, ${x}, $(…), `…`, <(…), $((…)), {a,b}, globs, …
      return { text: DYNAMIC, dynamic: true, pattern: /brace|glob|extglob/.test(node.type) };
  }
}

function sourceSlice(node: TsNode, from: number, to: number): string {
  return node.text.slice(from - node.startIndex, to - node.startIndex);
}

/** An unquoted word: backslashes escape the next character; globs and braces expand. */
function unquoted(text: string): Word {
  let out = "";
  let pattern = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (c === "\\") {
      if (text[i + 1] === "\n") i++;
      else if (i + 1 < text.length) out += text[++i];
      continue;
    }
    if ("*?[{~".includes(c)) pattern = true;
    out += c;
  }
  if (out.includes("$")) return { text: DYNAMIC, dynamic: true, pattern };
  return { text: out, dynamic: false, pattern };
}

function doubleQuoted(text: string): string {
  return text.replace(/\\([$`"\\\n])/g, (_, c: string) => c === "\n" ? "" : c);
}

function ansiC(body: string): Word {
  const simple: Record<string, string> = {
    n: "\n",
    t: "\t",
    r: "\r",
    "\\": "\\",
    "'": "'",
    '"': '"',
    a: "\x07",
    b: "\b",
    e: "\x1b",
    E: "\x1b",
    f: "\f",
    v: "\v",
    "?": "?",
  };
  let dynamic = false;
  const text = body.replace(
    /\\(x[0-9a-fA-F]{1,2}|[0-7]{1,3}|u[0-9a-fA-F]{1,4}|U[0-9a-fA-F]{1,8}|c.|.)/g,
    (_, e: string) => {
      if (/^x/.test(e)) return String.fromCharCode(parseInt(e.slice(1), 16));
      if (/^[0-7]/.test(e)) return String.fromCharCode(parseInt(e, 8));
      if (/^[uU]/.test(e)) return String.fromCodePoint(parseInt(e.slice(1), 16));
      if (e in simple) return simple[e];
      dynamic = true;
      return DYNAMIC;
    },
  );
  return { text: dynamic ? DYNAMIC : text, dynamic, pattern: false };
}

function display(text: string): string {
  return text.replaceAll(DYNAMIC, "…");
}

// ---------------------------------------------------------------------------------------------
// normalisation

const SYSTEM_BIN = /^\/(usr\/(local\/)?)?s?bin\/[^/]+$/;
const SHELLS = new Set(["sh", "bash", "zsh", "dash", "ksh", "mksh", "ash", "fish", "yash"]);
const UNJUDGEABLE: Record<string, string> = {
  eval: "eval runs a string built at run time",
  source: "source runs the commands of a file",
  ".": ". runs the commands of a file",
  alias: "alias changes what a name runs",
  trap: "trap runs a string later",
  enable: "enable loads builtins",
  hash: "hash changes which file a name runs",
  let: "let evaluates arithmetic that can run commands",
  fc: "fc runs commands from the history",
  coproc: "coproc runs a command in the background",
};

/** Programs that run a command given in their arguments, not unwrapped (their options vary too much). */
const RUNNERS = new Set([
  "watch",
  "su",
  "runuser",
  "script",
  "flock",
  "strace",
  "ltrace",
  "chrt",
  "taskset",
  "unbuffer",
  "firejail",
  "systemd-run",
  "parallel",
  "pkexec",
  "chroot",
  "unshare",
  "nsenter",
  "ssh-agent",
  "dbus-run-session",
  "catchsegv",
  "valgrind",
  "gdb",
  "perf",
  "faketime",
  "torsocks",
  "proxychains",
  "fakeroot",
]);

/** Options of the wrappers: those taking a value (short letters; long names without `--`). */
interface WrapperSpec {
  /** Short options taking a value. */
  short: string;
  /** Long options taking a value (written `--name value`). */
  long?: string[];
}
const WRAPPERS: Record<string, WrapperSpec> = {
  command: { short: "" },
  builtin: { short: "" },
  exec: { short: "a" },
  nohup: { short: "" },
  time: { short: "" },
  nice: { short: "n", long: ["adjustment"] },
  setsid: { short: "" },
  ionice: { short: "cnp", long: ["class", "classdata", "pid"] },
  stdbuf: { short: "ioe", long: ["input", "output", "error"] },
  timeout: { short: "sk", long: ["signal", "kill-after"] },
  sudo: {
    short: "ughpCDrtTU",
    long: ["user", "group", "host", "prompt", "close-from", "chdir", "role", "type"],
  },
  doas: { short: "uC" },
  env: { short: "uCS", long: ["unset", "chdir", "split-string"] },
  xargs: {
    short: "adEIiLlnPs",
    long: ["arg-file", "delimiter", "eof", "replace", "max-lines", "max-args", "max-procs", "max-chars"],
  },
  busybox: { short: "" },
};

/** The base name of a program, and the path when it is not in a system folder. */
function programOf(text: string): { name: string; path?: string } {
  if (!text.includes("/")) return { name: text };
  const name = text.slice(text.lastIndexOf("/") + 1);
  return SYSTEM_BIN.test(text) ? { name } : { name, path: text };
}

function normalise(words: Word[], out: Analysis, depth: number, derivedFrom?: string): void {
  let i = 0;
  while (i < words.length) {
    const head = words[i];
    if (head.dynamic || head.pattern) {
      out.unjudgeable.push(`the program "${display(head.text)}" is known only at run time`);
      return;
    }
    const { name, path } = programOf(head.text);
    if (name in UNJUDGEABLE) {
      out.unjudgeable.push(UNJUDGEABLE[name]);
      return;
    }
    const spec = WRAPPERS[name];
    if (spec && !path) {
      // running as another user is a command of its own: allowed only by a rule for it
      if (name === "sudo" || name === "doas") emit(words.slice(i), out, derivedFrom);
      const next = skipOptions(words, i + 1, name, spec, out);
      if (next === undefined) return;
      // `command -v x` and `command -V x` only look the name up
      if (name === "command" && words.slice(i + 1, next).some((w) => /^-[a-zA-Z]*[vV]/.test(w.text))) {
        emit(words.slice(i), out, derivedFrom);
        return;
      }
      let j = next;
      if (name === "timeout" && j < words.length) j++; // the duration
      if (name === "env" || name === "sudo") {
        const set: string[] = [];
        while (j < words.length && !words[j].dynamic && isAssignment(words[j].text)) {
          set.push(words[j++].text);
        }
        checkAssignments(set, out, true);
      }
      if (j >= words.length) {
        if (name === "xargs") {
          emit([plain("echo"), plain(DYNAMIC)], out, derivedFrom);
        } else if (!["command", "builtin", "exec", "time", "sudo", "doas"].includes(name)) {
          emit(words.slice(i), out, derivedFrom);
        }
        return;
      }
      if (name === "xargs") {
        normalise([...words.slice(j), plain(DYNAMIC)], out, depth, derivedFrom);
        return;
      }
      i = j;
      continue;
    }
    if (SHELLS.has(name)) return shell(words.slice(i), name, out, depth, derivedFrom);
    if (RUNNERS.has(name) && words.length > i + 1) {
      out.opaque.push(`${name} runs a command that is not looked into`);
    }
    emit(words.slice(i), out, derivedFrom);
    if (name === "find") find(words.slice(i + 1), out, depth);
    if (name === "tee") {
      for (const w of words.slice(i + 1)) {
        if (!w.text.startsWith("-") && !HARMLESS_TARGETS.has(w.text)) addWrite(w, out);
      }
    }
    return;
  }
}

/** The index after a wrapper's options, or undefined when an option makes it unjudgeable. */
function skipOptions(
  words: Word[],
  from: number,
  name: string,
  spec: WrapperSpec,
  out: Analysis,
): number | undefined {
  let i = from;
  while (i < words.length) {
    const w = words[i];
    if (w.dynamic) {
      out.unjudgeable.push(`an option of ${name} is known only at run time`);
      return undefined;
    }
    const t = w.text;
    if (t === "--") return i + 1;
    if (name === "nice" && /^-\d+$/.test(t)) {
      i++;
      continue;
    }
    if (t === "-" && name === "env") {
      i++;
      continue;
    }
    if (!t.startsWith("-") || t === "-") return i;
    if (
      (name === "env" && /^(-S|--split-string)/.test(t)) || (name === "sudo" && /^-[a-zA-Z]*[is]/.test(t))
    ) {
      out.unjudgeable.push(`${name} ${t} runs a command line built from a string`);
      return undefined;
    }
    if (t.startsWith("--")) {
      const long = t.slice(2);
      i += !long.includes("=") && spec.long?.includes(long) ? 2 : 1;
      continue;
    }
    // a cluster of short options; one taking a value takes the rest, or the next word
    let takesNext = false;
    for (let k = 1; k < t.length; k++) {
      if (spec.short.includes(t[k])) {
        takesNext = k === t.length - 1;
        break;
      }
    }
    i += takesNext ? 2 : 1;
  }
  return i;
}

function emit(words: Word[], out: Analysis, derivedFrom?: string): void {
  const { name, path } = programOf(words[0].text);
  const argv = [name, ...words.slice(1).map((w) => w.dynamic ? DYNAMIC : w.text)];
  const cmd: SimpleCommand = { argv };
  if (path) cmd.path = path;
  if (derivedFrom) cmd.derivedFrom = derivedFrom;
  out.commands.push(cmd);
}

/** `find … -delete` is an `rm`; `find … -exec cmd … ;` runs cmd. */
function find(args: Word[], out: Analysis, depth: number): void {
  for (let i = 0; i < args.length; i++) {
    const t = args[i].text;
    if (t === "-delete") {
      emit([plain("rm"), plain(DYNAMIC)], out, "find -delete");
    } else if (["-exec", "-execdir", "-ok", "-okdir"].includes(t)) {
      let end = i + 1;
      while (end < args.length && args[end].text !== ";" && args[end].text !== "+") end++;
      const inner = args.slice(i + 1, end).map((w) => w.text === "{}" ? plain(DYNAMIC) : w);
      if (inner.length) normalise(inner, out, depth, `find ${t}`);
      i = end;
    } else if (/^-fprint|^-fls$/.test(t) && i + 1 < args.length) {
      addWrite(args[i + 1], out);
    }
  }
}

/** `bash -c 'literal'` adds the literal's commands; a script from stdin or a variable cannot be judged. */
function shell(words: Word[], name: string, out: Analysis, depth: number, derivedFrom?: string): void {
  let i = 1;
  let script: Word | undefined;
  let hasC = false;
  while (i < words.length) {
    const t = words[i].text;
    if (words[i].dynamic) break;
    if (t === "--" || t === "-") {
      i++;
      break;
    }
    if (/^[-+]o$/.test(t) || t === "--rcfile" || t === "--init-file") {
      i += 2;
      continue;
    }
    if (!/^[-+]/.test(t)) break;
    if (/^-[a-zA-Z]*c[a-zA-Z]*$/.test(t)) hasC = true;
    i++;
  }
  if (hasC) script = words[i];
  if (hasC && !script) return;
  if (script) {
    if (script.dynamic) {
      out.unjudgeable.push(`${name} -c runs a script known only at run time`);
      return;
    }
    if (depth >= MAX_SCRIPT_DEPTH) {
      out.unjudgeable.push(`${name} -c scripts nest deeper than ${MAX_SCRIPT_DEPTH}`);
      return;
    }
    const inner = analyze(script.text, depth + 1);
    if ("error" in inner) {
      out.unjudgeable.push(`the script of ${name} -c cannot be analysed: ${inner.error}`);
      return;
    }
    out.commands.push(...inner.commands);
    out.writes.push(...inner.writes);
    out.unjudgeable.push(...inner.unjudgeable);
    out.opaque.push(...inner.opaque);
    return;
  }
  if (i >= words.length) {
    out.unjudgeable.push(`${name} reads the commands it runs from its input`);
    return;
  }
  emit(words, out, derivedFrom);
}

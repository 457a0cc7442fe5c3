/**
 * The in-process search engine: ripgrep's output for a {@link GrepQuery},
 * produced without spawning anything. Used when `--allow-run` for rg is not
 * granted (and for tiny scopes, where a spawn costs more than the search).
 *
 * The regex runs on JavaScript's engine after translating ripgrep syntax
 * (`(?i)` prefixes, `(?P<name>`, `\A`, `\z`, POSIX classes). Known
 * differences, stated in results: `\w`, `\d` and `\b` are ASCII-only; `$` also
 * matches before `\r`; binary files (with a NUL byte) and UTF-16 files are
 * skipped.
 *
 * @module
 */
import { InvalidInputError } from "../../errors.ts";
import { globToRegExp } from "../../search/glob_match.ts";
import { type GrepQuery, MAX_COLUMNS, sortByPath } from "../../search/ripgrep.ts";
import { walkFiles } from "../../search/walk.ts";

/** Regex features that behave differently in the in-process engine, for result notes. */
export const JS_ENGINE_DIFFERENCES =
  "\\w, \\d and \\b are ASCII-only, $ also matches before \\r, binary and UTF-16 files are skipped";

/** File types `type` accepts in process (ripgrep's definitions). */
export const FILE_TYPES: Readonly<Record<string, readonly string[]>> = {
  c: ["*.[chH]", "*.[chH].in", "*.cats"],
  cpp: [
    "*.[ChH]",
    "*.[ChH].in",
    "*.[ch]pp",
    "*.[ch]pp.in",
    "*.[ch]xx",
    "*.[ch]xx.in",
    "*.cc",
    "*.cc.in",
    "*.hh",
    "*.hh.in",
    "*.inl",
  ],
  csharp: ["*.cs"],
  css: ["*.css", "*.scss"],
  go: ["*.go"],
  html: ["*.ejs", "*.htm", "*.html"],
  java: ["*.java", "*.jsp", "*.jspx", "*.properties"],
  js: ["*.cjs", "*.js", "*.jsx", "*.mjs", "*.vue"],
  json: ["*.json", "*.sarif", "composer.lock"],
  kotlin: ["*.kt", "*.kts"],
  lua: ["*.lua"],
  md: ["*.markdown", "*.md", "*.mdown", "*.mdwn", "*.mdx", "*.mkd", "*.mkdn"],
  markdown: ["*.markdown", "*.md", "*.mdown", "*.mdwn", "*.mdx", "*.mkd", "*.mkdn"],
  php: ["*.php", "*.php3", "*.php4", "*.php5", "*.php7", "*.php8", "*.pht", "*.phtml"],
  py: ["*.py", "*.pyi"],
  ruby: ["*.gemspec", "*.rake", "*.rb", "*.rbw", ".irbrc", "Gemfile", "Rakefile", "config.ru"],
  rust: ["*.rs"],
  sh: ["*.bash", "*.sh", "*.zsh", ".bashrc", ".profile", ".zshrc"],
  sql: ["*.psql", "*.sql"],
  swift: ["*.swift"],
  toml: ["*.toml", "Cargo.lock"],
  ts: ["*.cts", "*.mts", "*.ts", "*.tsx"],
  txt: ["*.txt"],
  xml: ["*.dtd", "*.rng", "*.sch", "*.xhtml", "*.xjb", "*.xml", "*.xml.dist", "*.xsd", "*.xsl", "*.xslt"],
  yaml: ["*.yaml", "*.yml"],
};

const POSIX: Readonly<Record<string, string>> = {
  alnum: "0-9A-Za-z",
  alpha: "A-Za-z",
  blank: "\\t ",
  digit: "0-9",
  lower: "a-z",
  space: "\\t\\n\\v\\f\\r ",
  upper: "A-Z",
  word: "0-9A-Za-z_",
  xdigit: "0-9A-Fa-f",
};

/**
 * Translates a ripgrep regex into a JavaScript one with the same meaning, or
 * throws {@link InvalidInputError} with the reason rg would give.
 *
 * @example
 * ```ts
 * import { translateRegex } from "./js_grep.ts";
 * const re = translateRegex("(?i)fo+", { caseInsensitive: false, multiline: false });
 * console.assert(re.test("FOO") && re.flags.includes("i"));
 * ```
 */
export function translateRegex(pattern: string, q: { caseInsensitive: boolean; multiline: boolean }): RegExp {
  let source = pattern;
  let flags = "m";
  if (q.caseInsensitive) flags += "i";
  if (q.multiline) flags += "s";
  const lead = /^\(\?([a-zA-Z]+)\)/.exec(source);
  if (lead) {
    for (const f of lead[1]) {
      if (f === "i" || f === "s" || f === "m") flags += flags.includes(f) ? "" : f;
      else if (f !== "u") {
        throw new InvalidInputError(
          `Regex flag "${f}" is not supported by the in-process engine: rewrite "${pattern}" without it`,
        );
      }
    }
    source = source.slice(lead[0].length);
  }
  if (/\(\?<?[=!]/.test(source)) {
    throw new InvalidInputError(
      `Invalid regex "${pattern}": look-around, including look-ahead and look-behind, is not supported`,
    );
  }
  if (/(?<!\\)(?:\\\\)*\\[1-9]/.test(source)) {
    throw new InvalidInputError(`Invalid regex "${pattern}": backreferences are not supported`);
  }
  if (!q.multiline && (/(?<!\\)(?:\\\\)*\\n/.test(source) || source.includes("\n"))) {
    throw new InvalidInputError(
      `Invalid regex "${pattern}": the literal "\\n" is not allowed in a regex: set multiline to true to match across lines`,
    );
  }
  source = source
    .replace(/\(\?P</g, "(?<")
    .replace(/(?<!\\)((?:\\\\)*)\\A/g, "$1^(?<![\\s\\S])")
    .replace(/(?<!\\)((?:\\\\)*)\\z/g, "$1$(?![\\s\\S])")
    .replace(/\[:(\^?)([a-z]+):\]/g, (m, neg: string, name: string) => POSIX[name] && !neg ? POSIX[name] : m);
  for (const extra of ["u", ""]) {
    try {
      return new RegExp(source, flags + extra);
    } catch (err) {
      if (extra === "") {
        throw new InvalidInputError(
          `Invalid regex "${pattern}": ${
            (err as Error).message.replace(/^Invalid regular expression: /, "")
          }`,
        );
      }
    }
  }
  throw new InvalidInputError(`Invalid regex "${pattern}"`);
}

const utf8 = new TextDecoder();

/** Bytes checked for a NUL before a file is decoded. */
const BINARY_SNIFF = 8192;

/** Read buffer reused from file to file (grown for a larger file, and dropped after one past {@link SCRATCH_KEPT}). */
let scratch = new Uint8Array(256 * 1024);
const SCRATCH_KEPT = 8 * 1024 * 1024;

/**
 * The bytes of a file, in the shared scratch buffer when they fit (valid
 * until the next call); undefined when it cannot be read. One open, read and
 * close, without the stat and the allocation `Deno.readFileSync` makes.
 */
function readWhole(path: string): Uint8Array | undefined {
  let file: Deno.FsFile;
  try {
    file = Deno.openSync(path);
  } catch {
    return undefined;
  }
  try {
    let used = 0;
    for (;;) {
      if (used === scratch.length) {
        const bigger = new Uint8Array(scratch.length * 2);
        bigger.set(scratch);
        scratch = bigger;
      }
      const n = file.readSync(scratch.subarray(used));
      if (n === null || n === 0) break;
      used += n;
    }
    const bytes = scratch.subarray(0, used);
    if (scratch.length > SCRATCH_KEPT) scratch = new Uint8Array(256 * 1024); // a huge file's buffer is not kept
    return bytes;
  } catch {
    return undefined;
  } finally {
    file.close();
  }
}

/** What the in-process engine needs besides the query. */
export interface JsGrepOptions {
  /** Real path of the folder or file to search. */
  root: string;
  /** Whether `root` is a single file. */
  isFile: boolean;
  /** Receives each output line, as rg would print it; return false to stop. */
  onLine: (line: string) => boolean | void;
  /** Stop at this `performance.now()` time. */
  deadline: number;
  /** Cancels the search. */
  signal?: AbortSignal;
}

/** Searches in process. Returns whether it stopped early (by `onLine`, the deadline or the signal). */
export async function jsGrep(q: GrepQuery, o: JsGrepOptions): Promise<{ stopped: boolean }> {
  const re = translateRegex(q.pattern, q);
  const global = new RegExp(re.source, `${re.flags}g`);
  const filter = fileFilter(q);
  const files: Array<{ rel: string; abs: string }> = [];
  if (o.isFile) files.push({ rel: "", abs: o.root });
  else {
    await walkFiles(o.root, {
      respectIgnore: q.respectIgnore,
      signal: o.signal,
      skipDir: (rel, name) => filter.skipDir(rel, name),
      fileOverride: (rel, name) => filter.override(rel, name),
      onFile: (relDir, name, dir) => {
        if (filter.typeOk(name)) {
          files.push({ rel: relDir ? `${relDir}/${name}` : name, abs: `${dir}/${name}` });
        }
      },
    });
  }
  // only content mode streams in path order (the other modes are sorted afterwards, by mtime or path)
  const ordered = o.isFile || q.mode !== "content" ? files : sortByPath(files, (f) => f.rel);
  const display = (rel: string) =>
    rel === "" ? (q.target ?? "") : q.target === undefined ? rel : `${q.target.replace(/\/$/, "")}/${rel}`;
  const context = q.mode === "content" && (q.before > 0 || q.after > 0);
  let printedAny = false;
  let yieldAt = performance.now() + 20;
  for (const f of ordered) {
    const now = performance.now();
    if (now > o.deadline || o.signal?.aborted) return { stopped: true };
    if (now > yieldAt) {
      await new Promise((r) => setTimeout(r, 0));
      yieldAt = performance.now() + 20;
    }
    const bytes = readWhole(f.abs);
    if (!bytes) continue;
    // binary (a NUL byte) is skipped, as rg does. Most binary files show one early; past that the
    // check runs on the decoded text, ~30× faster than on the bytes (U+0000 decodes only from a NUL)
    if (bytes.subarray(0, BINARY_SNIFF).indexOf(0) !== -1) continue;
    const text = utf8.decode(bytes);
    if (bytes.length > BINARY_SNIFF && text.indexOf("\0") !== -1) continue;
    const name = display(f.rel);
    let matched: number[];
    let count: number;
    let lineAt: (k: number) => string;
    let lineCount = Infinity;
    if (!q.multiline && !context) {
      // no context needed: visit only the lines that hold a match, never split the file
      const found = findLines(global, re, text, q.mode === "files_with_matches");
      ({ matched, count } = found);
      lineAt = (k) => found.texts.get(k)!;
    } else {
      re.lastIndex = 0;
      if (!re.test(text)) continue;
      const lines = text.split("\n");
      if (lines.at(-1) === "") lines.pop();
      ({ matched, count } = q.multiline ? multilineMatches(re, text) : lineMatches(re, lines));
      lineAt = (k) => lines[k];
      lineCount = lines.length;
    }
    if (matched.length === 0) continue;
    if (q.mode === "files_with_matches") {
      if (o.onLine(name) === false) return { stopped: true };
      continue;
    }
    if (q.mode === "count") {
      if (o.onLine(`${name}:${count}`) === false) return { stopped: true };
      continue;
    }
    const matchedSet = new Set(matched);
    const show: number[] = [];
    let hi = -1;
    for (const m of matched) {
      const end = Math.min(m + q.after, lineCount - 1);
      for (let k = Math.max(m - q.before, hi + 1); k <= end; k++) show.push(k);
      hi = Math.max(hi, end);
    }
    let prev = -2;
    for (const k of show) {
      if (context && printedAny && k > prev + 1 && o.onLine("--") === false) return { stopped: true };
      const sep = matchedSet.has(k) ? ":" : "-";
      const text = lineAt(k);
      const line = previewLine(text);
      if (o.onLine(q.lineNumbers ? `${name}${sep}${k + 1}${sep}${line}` : `${name}${sep}${line}`) === false) {
        return { stopped: true };
      }
      prev = k;
      printedAny = true;
    }
  }
  return { stopped: false };
}

/**
 * Lines (0-based numbers and texts) that match `line`, found by scanning the
 * whole text with `global` and checking each candidate's own line, then
 * going on from the next line (a candidate may span lines; rg's never do).
 */
function findLines(
  global: RegExp,
  line: RegExp,
  text: string,
  firstOnly: boolean,
): { matched: number[]; count: number; texts: Map<number, string> } {
  const matched: number[] = [];
  const texts = new Map<number, string>();
  let lineNo = 0; // newlines before `counted`
  let counted = 0;
  let pos = 0;
  while (pos < text.length) {
    global.lastIndex = pos;
    const m = global.exec(text);
    if (!m) break;
    const start = m.index === 0 ? 0 : text.lastIndexOf("\n", m.index - 1) + 1;
    if (start >= text.length && text.length > 0) break; // past the final newline: no line there
    let end = text.indexOf("\n", m.index);
    if (end === -1) end = text.length;
    for (let k = text.indexOf("\n", counted); k !== -1 && k < start; k = text.indexOf("\n", counted)) {
      lineNo++;
      counted = k + 1;
    }
    const candidate = text.slice(start, end);
    line.lastIndex = 0;
    if (line.test(candidate)) {
      matched.push(lineNo);
      texts.set(lineNo, candidate);
      if (firstOnly) break;
    }
    pos = end + 1;
  }
  return { matched, count: matched.length, texts };
}

function lineMatches(re: RegExp, lines: readonly string[]): { matched: number[]; count: number } {
  const matched: number[] = [];
  for (let k = 0; k < lines.length; k++) {
    re.lastIndex = 0;
    if (re.test(lines[k])) matched.push(k);
  }
  return { matched, count: matched.length };
}

function multilineMatches(source: RegExp, text: string): { matched: number[]; count: number } {
  const re = new RegExp(source.source, source.flags.includes("g") ? source.flags : source.flags + "g");
  const starts = [0];
  for (let i = text.indexOf("\n"); i !== -1 && i < text.length - 1; i = text.indexOf("\n", i + 1)) {
    starts.push(i + 1);
  }
  const lineOf = (pos: number) => {
    let lo = 0, hi = starts.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (starts[mid] <= pos) lo = mid;
      else hi = mid - 1;
    }
    return lo;
  };
  const set = new Set<number>();
  let count = 0;
  for (const m of text.matchAll(re)) {
    count++;
    const end = m.index + Math.max(m[0].length - 1, 0);
    for (let k = lineOf(m.index); k <= lineOf(end); k++) set.add(k);
  }
  return { matched: [...set].sort((a, b) => a - b), count };
}

/**
 * rg's `--glob` and `--type` rules (paths relative to the root). As in rg, a
 * file a glob includes is searched even when an ignore file names it.
 */
function fileFilter(q: GrepQuery): {
  override: (rel: string, name: string) => boolean | undefined;
  typeOk: (name: string) => boolean;
  skipDir: (rel: string, name: string) => boolean;
} {
  const compile = (g: string) => {
    const negate = g.startsWith("!");
    const body = negate ? g.slice(1) : g;
    const anchored = body.includes("/");
    const re = globToRegExp(body.replace(/^\//, "").replace(/\/$/, ""));
    return { negate, anchored, re };
  };
  const globs = q.globs.map(compile);
  const positive = globs.some((g) => !g.negate);
  if (q.type !== undefined && !FILE_TYPES[q.type]) {
    throw new InvalidInputError(
      `Unknown file type "${q.type}": use one of ${Object.keys(FILE_TYPES).join(", ")}`,
    );
  }
  const types = q.type ? FILE_TYPES[q.type].map((g) => globToRegExp(g)) : undefined;
  const lastMatch = (rel: string, name: string) => {
    for (let i = globs.length - 1; i >= 0; i--) {
      const g = globs[i];
      if (g.re.test(g.anchored ? rel : name)) return g;
    }
    return undefined;
  };
  return {
    override(rel, name) {
      const m = lastMatch(rel, name);
      if (m) return !m.negate;
      return positive ? false : undefined;
    },
    typeOk: (name) => !types || types.some((t) => t.test(name)),
    skipDir: (rel, name) => lastMatch(rel, name)?.negate === true,
  };
}

/** Built on the first long line: building one costs about 36 ms and 3 MiB at start-up (bench/README.md). */
let graphemes: Intl.Segmenter | undefined;

/**
 * A line as rg's `--max-columns 500 --max-columns-preview` prints it: whole
 * when at most 500 bytes of UTF-8, else its first 500 grapheme clusters and a
 * marker (rg measures bytes, then cuts by graphemes).
 */
function previewLine(text: string): string {
  if (text.length * 3 <= MAX_COLUMNS || utf8Length(text, MAX_COLUMNS) <= MAX_COLUMNS) return text;
  let end = 0, n = 0;
  graphemes ??= new Intl.Segmenter(undefined, { granularity: "grapheme" });
  for (const g of graphemes.segment(text)) {
    if (n++ === MAX_COLUMNS) break;
    end = g.index + g.segment.length;
  }
  return `${text.slice(0, end)} [... omitted end of long line]`;
}

/** UTF-8 length of `s`, counted only until it passes `stop`. */
function utf8Length(s: string, stop: number): number {
  let n = 0;
  for (let i = 0; i < s.length && n <= stop; i++) {
    const c = s.charCodeAt(i);
    n += c < 0x80 ? 1 : c < 0x800 ? 2 : c >= 0xd800 && c < 0xdc00 ? (i++, 4) : 3;
  }
  return n;
}

/**
 * `.gitignore`-style ignore rules, with ripgrep's choice of files: `.gitignore`
 * (inside a git repository only), `.ignore` and `.rgignore` in every folder,
 * and `.git/info/exclude` at the repository root. Deeper files win over
 * shallower ones; in one folder `.rgignore` beats `.ignore` beats `.gitignore`;
 * inside one file the last matching line wins.
 *
 * @module
 */
import { globBody } from "./glob_match.ts";

/** Ignore files read in every folder, lowest precedence first. */
export const IGNORE_FILES: readonly string[] = [".gitignore", ".ignore", ".rgignore"];

interface Rule {
  re: RegExp;
  negate: boolean;
  dirOnly: boolean;
  /** Matched against the path relative to the layer's folder, else against the name. */
  anchored: boolean;
}

/** The rules of one folder. */
export interface IgnoreLayer {
  /** Absolute folder the rules are relative to. */
  readonly base: string;
  /** Characters to cut from an absolute path to make it relative to `base`. */
  readonly cut: number;
  /** Whether the rules come from git's files (`.gitignore`, `.git/info/exclude`), which stop at a repository root. */
  readonly git: boolean;
  /** Rules, lowest precedence first. */
  readonly rules: readonly Rule[];
  /** When no rule negates: one RegExp per (dir?, anchored?) for a single test. */
  readonly fast?: { fileName?: RegExp; fileRel?: RegExp; dirName?: RegExp; dirRel?: RegExp };
}

/**
 * Parses the text of an ignore file into rules.
 *
 * @example
 * ```ts
 * import { ignoreLayer, isIgnored } from "./ignore.ts";
 * const layer = ignoreLayer("/r", ["*.log\n!keep.log\n/build/\n"]);
 * console.assert(isIgnored([layer], "/r/a/x.log", "x.log", false));
 * console.assert(!isIgnored([layer], "/r/a/keep.log", "keep.log", false));
 * console.assert(isIgnored([layer], "/r/build", "build", true));
 * console.assert(!isIgnored([layer], "/r/a/build", "build", true));
 * ```
 */
export function ignoreLayer(
  base: string,
  texts: readonly string[],
  options: { git?: boolean } = {},
): IgnoreLayer {
  const rules: Rule[] = [];
  for (const text of texts) {
    for (const raw of text.split(/\r?\n/)) {
      const rule = parseLine(raw);
      if (rule) rules.push(rule);
    }
  }
  return {
    base,
    git: options.git ?? false,
    cut: base.endsWith("/") ? base.length : base.length + 1,
    rules,
    fast: rules.some((r) => r.negate) ? undefined : fastOf(rules),
  };
}

function parseLine(raw: string): Rule | undefined {
  let line = raw.replace(/(?<!\\)\s+$/, "");
  if (line === "" || line.startsWith("#")) return undefined;
  let negate = false;
  if (line.startsWith("!")) {
    negate = true;
    line = line.slice(1);
  } else if (line.startsWith("\\!") || line.startsWith("\\#")) line = line.slice(1);
  let dirOnly = false;
  if (line.endsWith("/")) {
    dirOnly = true;
    line = line.slice(0, -1);
  }
  if (line === "") return undefined;
  const anchored = line.includes("/");
  if (line.startsWith("/")) line = line.slice(1);
  if (line.startsWith("**/")) {
    // `**/x` matches at any depth: the same as an unanchored name when x has no slash
    const tail = line.slice(3);
    if (!tail.includes("/")) {
      return { re: new RegExp(`^${globBody(tail)}$`, "s"), negate, dirOnly, anchored: false };
    }
  }
  try {
    return { re: new RegExp(`^${globBody(line)}$`, "s"), negate, dirOnly, anchored };
  } catch {
    return undefined; // a line git would not understand either
  }
}

function fastOf(rules: readonly Rule[]): IgnoreLayer["fast"] {
  const join = (list: Rule[]) =>
    list.length ? new RegExp(list.map((r) => `(?:${r.re.source})`).join("|"), "s") : undefined;
  const files = rules.filter((r) => !r.dirOnly);
  return {
    fileName: join(files.filter((r) => !r.anchored)),
    fileRel: join(files.filter((r) => r.anchored)),
    dirName: join(rules.filter((r) => !r.anchored)),
    dirRel: join(rules.filter((r) => r.anchored)),
  };
}

/**
 * Whether {@link isIgnored} reads its `abs` argument for a file under
 * `chain`: when not, a walk need not build the file's path.
 */
export function readsFilePath(chain: readonly IgnoreLayer[]): boolean {
  return chain.some((l) => !l.fast || l.fast.fileRel !== undefined);
}

/**
 * Whether `abs` (named `name`) is ignored by a chain of layers, shallowest
 * first. A path the chain says nothing about is not ignored.
 */
export function isIgnored(chain: readonly IgnoreLayer[], abs: string, name: string, isDir: boolean): boolean {
  for (let i = chain.length - 1; i >= 0; i--) {
    const layer = chain[i];
    const fast = layer.fast;
    if (fast) {
      const byName = isDir ? fast.dirName : fast.fileName;
      if (byName?.test(name)) return true;
      const byRel = isDir ? fast.dirRel : fast.fileRel;
      if (byRel?.test(abs.slice(layer.cut))) return true;
      continue;
    }
    const rules = layer.rules;
    let rel: string | undefined;
    for (let j = rules.length - 1; j >= 0; j--) {
      const r = rules[j];
      if (r.dirOnly && !isDir) continue;
      const subject = r.anchored ? (rel ??= abs.slice(layer.cut)) : name;
      if (r.re.test(subject)) return !r.negate;
    }
  }
  return false;
}

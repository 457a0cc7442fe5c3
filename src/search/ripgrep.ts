/**
 * Locating and spawning ripgrep. The binary is `@vscode/ripgrep`'s (found
 * without importing that package, whose entry point needs `--allow-env`),
 * then `rg` on PATH. rg always runs from an argv array, never through a
 * shell, with stdin closed, and its output is streamed line by line so the
 * caller can stop it at a budget.
 *
 * @module
 */
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { lines } from "../streams.ts";

/** How Deno names platforms and CPUs, mapped to `@vscode/ripgrep`'s package suffixes. */
const PLATFORM: Readonly<Record<string, string>> = { linux: "linux", darwin: "darwin", windows: "win32" };
const ARCH: Readonly<Record<string, string>> = { x86_64: "x64", aarch64: "arm64" };

let located: string | undefined;

/**
 * The ripgrep binary to run: `override`, else `@vscode/ripgrep`'s binary in
 * Deno's npm cache, else `rg` (looked up on PATH when spawned).
 *
 * @example
 * ```ts
 * import { locateRipgrep } from "./ripgrep.ts";
 * console.assert(locateRipgrep("/opt/rg") === "/opt/rg");
 * console.assert(locateRipgrep().length > 0);
 * ```
 */
export function locateRipgrep(override?: string): string {
  if (override) return override;
  return located ??= vscodeRipgrep() ?? "rg";
}

function vscodeRipgrep(): string | undefined {
  const platform = PLATFORM[Deno.build.os];
  const arch = ARCH[Deno.build.arch];
  if (!platform || !arch) return undefined;
  let entry: string;
  try {
    entry = fileURLToPath(import.meta.resolve("@vscode/ripgrep"));
  } catch {
    return undefined;
  }
  // <scope>/ripgrep/<version>/lib/index.js (Deno's global cache) or
  // node_modules/@vscode/ripgrep/lib/index.js (a local node_modules folder)
  const pkg = dirname(dirname(entry));
  const exe = Deno.build.os === "windows" ? "rg.exe" : "rg";
  const name = `ripgrep-${platform}-${arch}`;
  const version = pkg.split(/[\\/]/).at(-1) ?? "";
  const candidates = /^\d+\.\d+\.\d+/.test(version)
    ? [join(dirname(dirname(pkg)), name, version, "bin", exe)]
    : [join(dirname(pkg), name, "bin", exe)];
  for (const c of candidates) {
    try {
      if (Deno.statSync(c).isFile) return c;
    } catch (err) {
      // without read permission on the cache we cannot look: trust the layout
      if (err instanceof Deno.errors.NotCapable || err instanceof Deno.errors.PermissionDenied) return c;
    }
  }
  return undefined;
}

/** Whether this process may run `program` (asks Deno, never prompts). */
export async function mayRun(program: string): Promise<boolean> {
  try {
    const status = await Deno.permissions.query({ name: "run", command: program });
    return status.state === "granted";
  } catch {
    return false;
  }
}

/** Options of {@link streamLines}. */
export interface StreamOptions {
  /** Working directory of the child. */
  cwd: string;
  /** Kills the child. */
  signal?: AbortSignal;
  /** Called per output line (without its newline); return false to stop rg early. */
  onLine: (line: string) => boolean | void;
  /** What ends a line: `"\0"` for rg's `--null` output. Default `"\n"`. */
  delimiter?: string;
}

/** How a streamed run ended. */
export interface StreamResult {
  /** Exit code (undefined when we stopped it). */
  code: number | undefined;
  /** Whether `onLine` or the signal stopped it early. */
  stopped: boolean;
  /** rg's error output, at most 8 KB. */
  stderr: string;
}

const MAX_STDERR = 8192;

/**
 * Runs a program from an argv array with stdin closed and hands its stdout
 * to `onLine`, line by line, until it ends or `onLine` says stop.
 */
export async function streamLines(
  program: string,
  args: readonly string[],
  options: StreamOptions,
): Promise<StreamResult> {
  const child = new Deno.Command(program, {
    args: [...args],
    cwd: options.cwd,
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
    clearEnv: true,
  }).spawn();
  let stopped = false;
  const kill = () => {
    if (stopped) return;
    stopped = true;
    try {
      child.kill("SIGKILL");
    } catch {
      // already gone
    }
  };
  options.signal?.addEventListener("abort", kill, { once: true });
  if (options.signal?.aborted) kill();
  const errText = collectStderr(child.stderr);
  let failed = true;
  try {
    for await (const line of lines(child.stdout, options.signal, { delimiter: options.delimiter })) {
      if (stopped) break;
      if (options.onLine(line) === false) {
        kill();
        break;
      }
    }
    failed = false;
  } finally {
    options.signal?.removeEventListener("abort", kill);
    if (failed) {
      // onLine or the stream threw: never leave the child running or unreaped
      kill();
      await child.status;
      await errText.catch(() => {});
    }
  }
  const status = await child.status;
  return { code: stopped ? undefined : status.code, stopped, stderr: await errText };
}

async function collectStderr(stream: ReadableStream<Uint8Array>): Promise<string> {
  const decoder = new TextDecoder();
  let text = "";
  for await (const chunk of stream) {
    if (text.length < MAX_STDERR) text += decoder.decode(chunk, { stream: true });
  }
  return text.slice(0, MAX_STDERR);
}

/**
 * Output modes of Grep.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { createGrepTool } from "../tools/grep/grep.ts";
 * import type { GrepMode } from "./ripgrep.ts";
 * const mode: GrepMode = "files_with_matches";
 * assert.ok(createGrepTool().input.safeParse({ pattern: "TODO", output_mode: mode }).success);
 * ```
 */
export type GrepMode = "content" | "files_with_matches" | "count";

/** One search, engine-neutral: what rg's flags say. */
export interface GrepQuery {
  /** The regex (ripgrep syntax). */
  pattern: string;
  /** Output mode. */
  mode: GrepMode;
  /** `-i`. */
  caseInsensitive: boolean;
  /** `-n` (content mode). */
  lineNumbers: boolean;
  /** Lines of context before each match (content mode). */
  before: number;
  /** Lines of context after each match (content mode). */
  after: number;
  /** `--glob` patterns, in order (a leading `!` excludes). */
  globs: readonly string[];
  /** `--type`. */
  type?: string;
  /** `-U --multiline-dotall`. */
  multiline: boolean;
  /** Apply ignore files (else `--no-ignore`). */
  respectIgnore: boolean;
  /** Folder rg runs in (the session cwd). */
  cwd: string;
  /** The path argument, relative to `cwd` when inside it; undefined to search `cwd` itself. */
  target?: string;
}

/** Longest line printed whole; longer ones are cut to a preview. */
export const MAX_COLUMNS = 500;

/**
 * The rg argv for a query (no shell: each value is its own argument, and the
 * pattern goes after `-e` so a leading `-` is not read as a flag).
 *
 * @example
 * ```ts
 * import { rgArgs } from "./ripgrep.ts";
 * const args = rgArgs({
 *   pattern: "-x",
 *   mode: "files_with_matches",
 *   caseInsensitive: true,
 *   lineNumbers: false,
 *   before: 0,
 *   after: 0,
 *   globs: [],
 *   multiline: false,
 *   respectIgnore: true,
 *   cwd: "/w",
 * });
 * console.assert(args.includes("--files-with-matches") && args.includes("--ignore-case"));
 * console.assert(args[args.indexOf("--regexp") + 1] === "-x");
 * ```
 */
export function rgArgs(q: GrepQuery): string[] {
  const args = ["--no-config", "--color", "never", "--no-heading", "--with-filename", "--hidden"];
  if (q.mode === "files_with_matches") args.push("--files-with-matches");
  else if (q.mode === "count") args.push("--count");
  else {
    args.push(q.lineNumbers ? "--line-number" : "--no-line-number");
    if (q.before > 0) args.push("--before-context", String(q.before));
    if (q.after > 0) args.push("--after-context", String(q.after));
    args.push("--max-columns", String(MAX_COLUMNS), "--max-columns-preview", "--sort", "path");
  }
  if (q.caseInsensitive) args.push("--ignore-case");
  if (q.multiline) args.push("--multiline", "--multiline-dotall");
  if (!q.respectIgnore) args.push("--no-ignore");
  if (q.type) args.push("--type", q.type);
  for (const g of q.globs) args.push("--glob", g);
  args.push("--glob", "!.git", "--regexp", q.pattern);
  if (q.target !== undefined) args.push("--", q.target);
  return args;
}

/** A file listing (`rg --files`), as Glob asks for it. */
export interface FilesQuery {
  /** Folders, relative to the cwd, to list from. Default: the cwd. */
  paths?: readonly string[];
  /** Folder levels below those folders to list files from (0: their own). Default no limit. */
  maxDepth?: number;
  /** A glob every listed file's name must match (a hint: left out when rg could read it differently). */
  nameGlob?: string;
  /** Apply ignore files (else `--no-ignore`). */
  respectIgnore: boolean;
}

/** Name globs rg reads as `glob_match.ts` does: plain characters, `*`, `?` and one level of braces. */
const SIMPLE_NAME_GLOB = /^[\w.*?@+=~#%-]*(?:\{[\w.*?@+=~#%,-]*\}[\w.*?@+=~#%-]*)?$/;

/**
 * The rg argv that lists files, NUL-separated, with hidden files, without
 * `.git`. The name glob goes in as a file type: unlike `--glob`, a type
 * leaves the ignore rules in force (a folder named in `paths` is listed even
 * when ignored, so the caller checks those).
 *
 * @example
 * ```ts
 * import { rgFilesArgs } from "./ripgrep.ts";
 * const args = rgFilesArgs({ paths: ["src"], maxDepth: 0, nameGlob: "*.ts", respectIgnore: true });
 * console.assert(args.join(" ").endsWith("--max-depth 1 --type-add paddock:*.ts --type paddock -- src"));
 * ```
 */
export function rgFilesArgs(q: FilesQuery): string[] {
  const args = ["--no-config", "--files", "--hidden", "--null", "--glob", "!.git"];
  if (!q.respectIgnore) args.push("--no-ignore");
  if (q.maxDepth !== undefined && q.maxDepth !== Infinity) args.push("--max-depth", String(q.maxDepth + 1));
  if (q.nameGlob !== undefined && SIMPLE_NAME_GLOB.test(q.nameGlob)) {
    args.push("--type-add", `paddock:${q.nameGlob}`, "--type", "paddock");
  }
  if (q.paths?.length) args.push("--", ...q.paths);
  return args;
}

const encoder = new TextEncoder();
const decoder = new TextDecoder();

/**
 * Sorts items by path in {@link comparePaths} order (stable), several times faster
 * than sorting with it: every `/` becomes `\x01` in one pass over the encoded
 * paths, so the engine's own string sort gives the same order.
 *
 * @example
 * ```ts
 * import { sortByPath } from "./ripgrep.ts";
 * const sorted = sortByPath(["a.b:1", "a/b:2", "a:3"], (l) => l.slice(0, l.lastIndexOf(":")));
 * console.assert(sorted.join(" ") === "a:3 a/b:2 a.b:1");
 * ```
 */
export function sortByPath<T>(items: readonly T[], pathOf: (item: T) => string): T[] {
  if (items.length < 2) return [...items];
  const bytes = encoder.encode(items.map(pathOf).join("\0"));
  for (let i = 0; i < bytes.length; i++) if (bytes[i] === 0x2f) bytes[i] = 1;
  const keys = decoder.decode(bytes).split("\0");
  for (let i = 0; i < keys.length; i++) keys[i] += keyTail(i);
  return orderByKeys(items, keys);
}

/** What follows a path in its sort key: the item's index after a NUL, padded so equal paths keep their order. */
function keyTail(i: number): string {
  return `\0${String(i).padStart(10, "0")}`;
}

/**
 * The sort key of the `i`th of some paths, for {@link orderByKeys}: built
 * one at a time (while rg still runs), the same order as {@link sortByPath}.
 */
export function pathSortKey(path: string, i: number): string {
  return path.replaceAll("/", "\x01") + keyTail(i);
}

/**
 * The items in {@link comparePaths} order of their paths, given the keys
 * {@link pathSortKey} made for them (sorted in place).
 *
 * @example
 * ```ts
 * import { orderByKeys, pathSortKey } from "./ripgrep.ts";
 * const items = ["a.b", "a/b", "a"];
 * console.assert(orderByKeys(items, items.map(pathSortKey)).join(" ") === "a a/b a.b");
 * ```
 */
export function orderByKeys<T>(items: readonly T[], keys: string[]): T[] {
  keys.sort();
  return keys.map((k) => items[Number(k.slice(k.lastIndexOf("\0") + 1))]);
}

/**
 * Orders paths as `rg --sort path` does: folder by folder, names compared
 * byte-wise (so `a/b` comes before `a.b`).
 */
export function comparePaths(a: string, b: string): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    const x = a.charCodeAt(i);
    const y = b.charCodeAt(i);
    if (x === y) continue;
    if (x === 47) return -1;
    if (y === 47) return 1;
    return x - y;
  }
  return a.length - b.length;
}

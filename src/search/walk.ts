/**
 * A plain, single-threaded walk of a folder's files with ripgrep's choice of
 * what to leave out: `.git`, symlinks (never followed), and, unless told
 * not to, what the ignore files say (see `ignore.ts`), those of the folders
 * above the root included. Glob falls back to it where `rg --files` may not
 * run; Grep's in-process engine searches the files it hands out. Nothing is
 * cached: every walk reads the tree as it is.
 *
 * @module
 */
import { dirname, join } from "node:path";
import { setImmediate } from "node:timers";
import { globToRegExp, splitLiteralPrefix } from "./glob_match.ts";
import { IGNORE_FILES, type IgnoreLayer, ignoreLayer, isIgnored } from "./ignore.ts";
import { pathExists as exists } from "../session/workspace.ts";

/** Work done between turns of the event loop, so an abort can land mid-walk (ms). */
export const WALK_SLICE_MS = 20;

/** Options of {@link walkFiles}. */
export interface WalkOptions {
  /** Apply `.gitignore`, `.ignore` and `.rgignore`. Default true. */
  respectIgnore?: boolean;
  /** Literal folders (relative to the root, `/`-separated) to descend before walking. Default none. */
  prefix?: string;
  /** Deepest folder level, below the root, to list files from (0: the root's own). Default no limit. */
  maxDepth?: number;
  /** Stops the walk. */
  signal?: AbortSignal;
  /** Folders to leave out (path relative to the root, and name). Default none. */
  skipDir?: (rel: string, name: string) => boolean;
  /**
   * Decides a file before the ignore rules (rg's `--glob` overrides): true keeps
   * it even when ignored, false drops it, undefined leaves it to the rules.
   * Default: the rules decide.
   */
  fileOverride?: (rel: string, name: string) => boolean | undefined;
  /**
   * Called for each kept file: its folder relative to the root (`""` at the
   * root), its name and its absolute folder. Return false to stop.
   */
  onFile: (relDir: string, name: string, dir: string) => boolean | void;
}

/** Where a walk stands on entering a folder. */
interface Frame {
  /** Absolute folder. */
  dir: string;
  /** Its path from the root (`""` for the root). */
  rel: string;
  /** Ignore layers in force above it, shallowest first. */
  chain: IgnoreLayer[];
  /** Whether a folder above it is a git repository. */
  inGit: boolean;
  /** Folder level below the root. */
  depth: number;
}

/** One folder as read: its regular files, subfolders, and what its ignore rules add. */
interface Listing {
  files: string[];
  dirs: string[];
  chain: IgnoreLayer[];
  inGit: boolean;
}

/**
 * Walks the files of `root`. Returns false when `onFile` stopped it or the
 * signal fired, true otherwise (a missing or ignored `prefix` walks nothing).
 *
 * @example
 * ```ts
 * import { walkFiles } from "./walk.ts";
 * const dir = Deno.makeTempDirSync();
 * Deno.mkdirSync(`${dir}/sub`);
 * Deno.writeTextFileSync(`${dir}/sub/a.txt`, "x");
 * Deno.writeTextFileSync(`${dir}/.ignore`, "*.log\n");
 * Deno.writeTextFileSync(`${dir}/b.log`, "x");
 * const seen: string[] = [];
 * await walkFiles(dir, { onFile: (relDir, name) => void seen.push(relDir ? `${relDir}/${name}` : name) });
 * console.assert(seen.sort().join() === ".ignore,sub/a.txt");
 * Deno.removeSync(dir, { recursive: true });
 * ```
 */
export async function walkFiles(root: string, options: WalkOptions): Promise<boolean> {
  const respect = options.respectIgnore ?? true;
  const maxDepth = options.maxDepth ?? Infinity;
  const { signal, skipDir, fileOverride, onFile } = options;
  const start = startFrame(root, options.prefix ?? "", respect);
  if (!start) return true;
  const stack: Frame[] = [start];
  let yieldAt = performance.now() + WALK_SLICE_MS;
  while (stack.length) {
    if (signal?.aborted) return false;
    if (performance.now() > yieldAt) {
      // setImmediate, not setTimeout(0): a turn of the loop for ~0.03 ms instead of ~2
      await new Promise((resolve) => setImmediate(resolve));
      if (signal?.aborted) return false;
      yieldAt = performance.now() + WALK_SLICE_MS;
    }
    const frame = stack.pop()!;
    const listing = list(frame, respect);
    if (!listing) continue;
    const { chain } = listing;
    const checks = respect && chain.length > 0;
    for (const name of listing.files) {
      const rel = frame.rel ? `${frame.rel}/${name}` : name;
      const decided = fileOverride?.(rel, name);
      if (decided === false) continue;
      if (decided !== true && checks && isIgnored(chain, `${frame.dir}/${name}`, name, false)) continue;
      if (onFile(frame.rel, name, frame.dir) === false) return false;
    }
    if (frame.depth >= maxDepth) continue;
    for (const name of listing.dirs) {
      const abs = `${frame.dir}/${name}`;
      const rel = frame.rel ? `${frame.rel}/${name}` : name;
      if (name === ".git" || (checks && isIgnored(chain, abs, name, true)) || skipDir?.(rel, name)) continue;
      stack.push({ dir: abs, rel, chain, inGit: listing.inGit, depth: frame.depth + 1 });
    }
  }
  return true;
}

/** Where a listing of a Glob pattern's files starts: folders relative to the root, and their level below it. */
export interface GlobStart {
  /** Folders to list from (`[]`: the root itself). */
  paths: string[];
  /** Their folder level below the root. */
  depth: number;
}

/**
 * The folders a listing of `pattern`'s files under `root` need start from:
 * its literal prefix (`src/vs` for `src/vs/**\/*.ts`), and, when the next
 * segment is a wildcard with more to follow (`{src,test}/**\/*.ts`), the
 * subfolders it matches there that a walk would enter (not `.git`, not
 * symlinks, not ignored). Undefined when there is none: the prefix is
 * missing, ignored or goes through `.git`, or no subfolder matches.
 *
 * @example
 * ```ts
 * import { globStart } from "./walk.ts";
 * const dir = Deno.makeTempDirSync();
 * for (const d of ["src/a", "src/b", "test"]) Deno.mkdirSync(`${dir}/${d}`, { recursive: true });
 * console.assert(globStart(dir, "src/**\/*.ts")?.paths.join() === "src");
 * console.assert(globStart(dir, "{src,test}/**\/*.ts")?.paths.sort().join() === "src,test");
 * console.assert(globStart(dir, "lib/*.ts") === undefined && globStart(dir, "*.ts")?.paths.length === 0);
 * Deno.removeSync(dir, { recursive: true });
 * ```
 */
export function globStart(
  root: string,
  pattern: string,
  options: { respectIgnore?: boolean } = {},
): GlobStart | undefined {
  const respect = options.respectIgnore ?? true;
  const { prefix, rest } = splitLiteralPrefix(pattern);
  const depth = prefix ? prefix.split("/").length : 0;
  const first = rest.slice(0, Math.max(0, rest.indexOf("/")));
  // a brace holding a `/` spans segments: the first `/`-separated part is not one
  const expand = first !== "" && first !== "**" && !/\{[^}]*\/[^}]*\}/.test(rest);
  if (!expand) {
    return prefix && !startFrame(root, prefix, respect)
      ? undefined
      : { paths: prefix ? [prefix] : [], depth };
  }
  const frame = startFrame(root, prefix, respect);
  const listing = frame && list(frame, respect);
  if (!listing) return undefined;
  const checks = respect && listing.chain.length > 0;
  const re = globToRegExp(first);
  const paths = listing.dirs.filter((name) =>
    name !== ".git" && re.test(name) &&
    !(checks && isIgnored(listing.chain, `${frame.dir}/${name}`, name, true))
  ).map((name) => prefix ? `${prefix}/${name}` : name);
  return paths.length ? { paths, depth: depth + 1 } : undefined;
}

/** The frame a walk starts from: the root, or the folder its literal `prefix` names. */
function startFrame(root: string, prefix: string, respect: boolean): Frame | undefined {
  const above = respect ? ancestorLayers(root) : { chain: [], inGit: false };
  let frame: Frame = { dir: root, rel: "", ...above, depth: 0 };
  for (const seg of prefix.split("/").filter((s) => s && s !== ".")) {
    const listing = list(frame, respect);
    if (!listing || seg === ".git" || !listing.dirs.includes(seg)) return undefined;
    const abs = `${frame.dir}/${seg}`;
    if (respect && isIgnored(listing.chain, abs, seg, true)) return undefined;
    frame = {
      dir: abs,
      rel: frame.rel ? `${frame.rel}/${seg}` : seg,
      chain: listing.chain,
      inGit: listing.inGit,
      depth: frame.depth + 1,
    };
  }
  return frame;
}

/** Reads one folder; undefined when it cannot be read. */
function list(frame: Frame, respect: boolean): Listing | undefined {
  const files: string[] = [];
  const dirs: string[] = [];
  let hasGit = false;
  let present: string[] | undefined;
  try {
    for (const e of Deno.readDirSync(frame.dir)) {
      if (e.isFile) {
        if (e.name === ".git") {
          hasGit = true; // a worktree's or submodule's pointer file
          continue;
        }
        files.push(e.name);
        if (e.name.charCodeAt(0) === 46 && IGNORE_FILES.includes(e.name)) (present ??= []).push(e.name);
      } else if (e.isDirectory) {
        dirs.push(e.name);
        if (e.name === ".git") hasGit = true;
      }
    }
  } catch {
    return undefined;
  }
  if (!respect) return { files, dirs, chain: frame.chain, inGit: frame.inGit };
  let chain = frame.chain;
  // a repository root: the .gitignore files above it stop applying (as in rg)
  if (hasGit && chain.some((l) => l.git)) chain = chain.filter((l) => !l.git);
  const inGit = frame.inGit || hasGit;
  if (present || hasGit) chain = [...chain, ...layersOf(frame.dir, present ?? [], inGit, hasGit)];
  return { files, dirs, chain, inGit };
}

/** The layers of one folder: git's (`.git/info/exclude`, `.gitignore`) below the others (`.ignore`, `.rgignore`). */
function layersOf(dir: string, present: readonly string[], inGit: boolean, hasGit: boolean): IgnoreLayer[] {
  const git: string[] = [];
  if (inGit && hasGit) git.push(readText(join(dir, ".git", "info", "exclude")));
  if (inGit && present.includes(".gitignore")) git.push(readText(join(dir, ".gitignore")));
  const plain = [".ignore", ".rgignore"].filter((n) => present.includes(n)).map((n) =>
    readText(join(dir, n))
  );
  return [ignoreLayer(dir, git, { git: true }), ignoreLayer(dir, plain)].filter((l) => l.rules.length > 0);
}

/** The ignore rules the folders above `root` contribute, and whether one of them is a repository. */
function ancestorLayers(root: string): { chain: IgnoreLayer[]; inGit: boolean } {
  const dirs: string[] = [];
  for (let d = root; dirname(d) !== d;) dirs.unshift(d = dirname(d));
  let chain: IgnoreLayer[] = [];
  let inGit = false;
  for (const d of dirs) {
    const hasGit = exists(join(d, ".git"));
    inGit ||= hasGit;
    const present = IGNORE_FILES.filter((n) => exists(join(d, n)));
    if (present.length === 0 && !hasGit) continue;
    if (hasGit) chain = chain.filter((l) => !l.git);
    chain.push(...layersOf(d, present, inGit, hasGit));
  }
  return { chain, inGit };
}

function readText(path: string): string {
  try {
    return Deno.readTextFileSync(path);
  } catch {
    return "";
  }
}

/**
 * Path safety shared by every file tool: absolute paths only, `..` and
 * symlinks resolved before the containment check, NUL bytes and device files
 * refused. Deno checks a path as written, not where a symlink points, so this
 * check is ours to do before every file access.
 *
 * @module
 */
import { basename, dirname, isAbsolute, join, relative, resolve } from "node:path";
import { InvalidInputError, NotFoundError, PermissionDeniedError } from "../errors.ts";

/**
 * Where a path may lead: the working directory and the workspace roots (a tool's context is one).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { resolveSafePath, type WorkspaceScope } from "./workspace.ts";
 * const dir = await Deno.realPath(await Deno.makeTempDir());
 * const scope: WorkspaceScope = { cwd: dir, roots: [dir] };
 * assert.equal(resolveSafePath(`${dir}/new.txt`, scope, { mustExist: false }).real, `${dir}/new.txt`);
 * await Deno.remove(dir);
 * ```
 */
export interface WorkspaceScope {
  /** The working directory (absolute). */
  readonly cwd: string;
  /** Workspace roots (absolute, symlinks resolved). */
  readonly roots: readonly string[];
}

/**
 * What {@link resolveSafePath} expects of the target.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { resolveSafePath, type SafePathOptions } from "./workspace.ts";
 * const dir = await Deno.realPath(await Deno.makeTempDir());
 * const folder: SafePathOptions = { param: "path", kind: "dir" };
 * assert.equal(resolveSafePath(dir, { cwd: dir, roots: [dir] }, folder).info?.isDirectory, true);
 * await Deno.remove(dir);
 * ```
 */
export interface SafePathOptions {
  /** The parameter's name, for messages. Default `file_path`. */
  param?: string;
  /** The target must exist. Default true. */
  mustExist?: boolean;
  /** What the target must be when it exists: `file`, `dir` or `any`. Default `file`. */
  kind?: "file" | "dir" | "any";
}

/**
 * A checked path.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { resolveSafePath, type SafePath } from "./workspace.ts";
 * const dir = await Deno.realPath(await Deno.makeTempDir());
 * await Deno.writeTextFile(`${dir}/a.txt`, "hi");
 * const checked: SafePath = resolveSafePath(`${dir}/./a.txt`, { cwd: dir, roots: [dir] });
 * assert.equal(checked.real, `${dir}/a.txt`);
 * assert.equal(checked.info?.size, 2);
 * await Deno.remove(dir, { recursive: true });
 * ```
 */
export interface SafePath {
  /** The path as given, normalised. */
  requested: string;
  /** The real path (symlinks resolved; for a new file, its real parent plus its name). */
  real: string;
  /** Stat of the real path, when it exists. */
  info?: Deno.FileInfo;
}

/**
 * Checks `path` for a file tool and returns its real location.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { resolveSafePath } from "./workspace.ts";
 * import { Session } from "./session.ts";
 * const dir = Deno.makeTempDirSync();
 * const session = new Session({ roots: [dir] });
 * const ctx = { cwd: session.cwd, roots: session.roots } as never;
 * let refused = false;
 * try {
 *   resolveSafePath("/etc/passwd", ctx);
 * } catch {
 *   refused = true;
 * }
 * assert.ok(refused);
 * Deno.removeSync(dir);
 * ```
 */
export function resolveSafePath(
  path: string,
  ctx: WorkspaceScope,
  options: SafePathOptions = {},
): SafePath {
  const param = options.param ?? "file_path";
  const mustExist = options.mustExist ?? true;
  const kind = options.kind ?? "file";
  if (path.includes("\0")) throw new InvalidInputError(`"${param}" contains a NUL byte`);
  if (path.trim() === "") throw new InvalidInputError(`"${param}" is empty: give an absolute path`);
  if (!isAbsolute(path)) {
    throw new InvalidInputError(
      `"${param}" must be an absolute path, got "${path}": did you mean "${resolve(ctx.cwd, path)}"?`,
    );
  }
  const requested = resolve(path);
  const real = realPathOfPossiblyMissing(requested);
  if (!isInside(real, ctx.roots)) {
    const via = real !== requested ? ` (it resolves to "${real}")` : "";
    throw new PermissionDeniedError(
      `Cannot access "${requested}"${via}: outside the workspace ${
        ctx.roots.map((r) => `"${r}"`).join(", ")
      }`,
    );
  }
  let info: Deno.FileInfo | undefined;
  try {
    info = Deno.statSync(real);
  } catch (err) {
    if (!(err instanceof Deno.errors.NotFound)) throw err;
  }
  if (!info) {
    if (mustExist) throw new NotFoundError(`File does not exist: "${requested}"`);
    return { requested, real };
  }
  if (info.isFile) {
    if (kind === "dir") throw new InvalidInputError(`"${requested}" is a file, not a directory`);
  } else if (info.isDirectory) {
    if (kind === "file") {
      throw new InvalidInputError(
        `"${requested}" is a directory, not a file: use Glob or Bash "ls" to list it`,
      );
    }
  } else {
    throw new InvalidInputError(`"${requested}" is a device, socket or pipe, not a regular file: refused`);
  }
  return { requested, real, info };
}

/**
 * True when `absPath` is one of `roots` or below one.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { isInside } from "./workspace.ts";
 * assert.ok(isInside("/w/src/a.ts", ["/w"]));
 * assert.ok(!isInside("/w2/a.ts", ["/w"]));
 * assert.ok(isInside("/w/..hidden", ["/w"]));
 * assert.ok(!isInside("/w/../x", ["/w"]));
 * ```
 */
export function isInside(absPath: string, roots: readonly string[]): boolean {
  return roots.some((root) => {
    const rel = relative(root, absPath);
    // `..` as a whole segment leaves the root; a file named `..hidden` does not.
    return rel === "" || (!/^\.\.(?:[\\/]|$)/.test(rel) && !isAbsolute(rel));
  });
}

/** The real path of `abs`, resolving symlinks of the longest existing prefix. */
export function realPathOfPossiblyMissing(abs: string): string {
  const missing: string[] = [];
  let cur = abs;
  for (;;) {
    try {
      const real = Deno.realPathSync(cur);
      return missing.length ? join(real, ...missing.reverse()) : real;
    } catch (err) {
      if (!(err instanceof Deno.errors.NotFound)) throw err;
      // a dangling symlink: refuse to guess where it would lead
      try {
        if (Deno.lstatSync(cur).isSymlink) {
          const target = Deno.readLinkSync(cur);
          return realPathOfPossiblyMissing(resolve(dirname(cur), target)) +
            (missing.length ? `/${missing.reverse().join("/")}` : "");
        }
      } catch (e) {
        if (!(e instanceof Deno.errors.NotFound)) throw e;
      }
      const parent = dirname(cur);
      if (parent === cur) return abs;
      missing.push(basename(cur));
      cur = parent;
    }
  }
}

/**
 * True when `path` exists now and its real path is inside `roots`: the check a
 * search result passes before it is reported (rg walks by path, so a folder
 * swapped for a symbolic link mid-search could list or search outside).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { reallyInside } from "./workspace.ts";
 * const dir = await Deno.realPath(await Deno.makeTempDir());
 * await Deno.writeTextFile(`${dir}/a.txt`, "hi");
 * await Deno.symlink("/etc/hostname", `${dir}/out`);
 * assert.ok(reallyInside(`${dir}/a.txt`, [dir]));
 * assert.ok(!reallyInside(`${dir}/out`, [dir]));
 * assert.ok(!reallyInside(`${dir}/missing`, [dir]));
 * await Deno.remove(dir, { recursive: true });
 * ```
 */
export function reallyInside(path: string, roots: readonly string[]): boolean {
  try {
    return isInside(Deno.realPathSync(path), roots);
  } catch {
    return false;
  }
}

/**
 * The path a path rule (`Read(...)`, `Edit(...)`) is matched against: absolute
 * (against `cwd`), `//`, `/./` and `..` folded, symbolic links resolved (also
 * for a file that does not exist yet: its real parent plus its name), so an
 * alias cannot dodge a rule.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { rulePath } from "./workspace.ts";
 * const dir = await Deno.realPath(await Deno.makeTempDir());
 * await Deno.mkdir(`${dir}/secret`);
 * await Deno.symlink(`${dir}/secret`, `${dir}/alias`);
 * assert.equal(rulePath(`${dir}//alias/./new.txt`, "/"), `${dir}/secret/new.txt`);
 * await Deno.remove(dir, { recursive: true });
 * ```
 */
export function rulePath(path: string, cwd: string): string {
  const abs = resolve(cwd, path);
  try {
    return realPathOfPossiblyMissing(abs);
  } catch {
    return abs;
  }
}

/** Whether anything (a file, folder or link, followed or not) is at `path`. */
export function pathExists(path: string): boolean {
  try {
    Deno.lstatSync(path);
    return true;
  } catch {
    return false;
  }
}

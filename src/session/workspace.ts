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
import type { ToolContext } from "../tool/define_tool.ts";

/** What {@link resolveSafePath} expects of the target. */
export interface SafePathOptions {
  /** The parameter's name, for messages. Default `file_path`. */
  param?: string;
  /** The target must exist. Default true. */
  mustExist?: boolean;
  /** What the target must be when it exists: `file`, `dir` or `any`. Default `file`. */
  kind?: "file" | "dir" | "any";
}

/** A checked path. */
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
 * import { resolveSafePath } from "./workspace.ts";
 * import { Session } from "./session.ts";
 * const dir = Deno.makeTempDirSync();
 * const session = new Session({ roots: [dir] });
 * const ctx = { cwd: session.cwd, roots: session.roots } as never;
 * let refused = false;
 * try { resolveSafePath("/etc/passwd", ctx); } catch { refused = true; }
 * console.assert(refused);
 * Deno.removeSync(dir);
 * ```
 */
export function resolveSafePath(
  path: string,
  ctx: Pick<ToolContext, "cwd" | "roots">,
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

/** True when `absPath` is one of `roots` or below one. */
export function isInside(absPath: string, roots: readonly string[]): boolean {
  return roots.some((root) => {
    const rel = relative(root, absPath);
    return rel === "" || (!rel.startsWith("..") && !isAbsolute(rel));
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

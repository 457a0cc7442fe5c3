/**
 * Protected paths (THREATS.md P3, TOOLS.md "Protected paths"): files inside a
 * workspace whose content can make a later run execute code or trust
 * settings. The OS sandbox mounts them read-only (`src/sandbox/protect.ts`
 * uses these lists); the file tools' writes to them are never approved by a
 * mode (`decide.ts`). {@link protectedPathOf} finds the protected path a
 * written path falls in, by the path as written and by its real path (the
 * symbolic links of the existing part resolved, also dangling ones), so
 * `./.git/../.git/config` and an alias link to `.git` count.
 *
 * @module
 */
import { dirname, isAbsolute, join, relative, resolve, sep } from "node:path";

/** Paths under every workspace root that a run may not change unasked (folders cover what is inside). */
export const PROTECTED_PATHS: readonly string[] = [
  ".paddock",
  ".mcp.json",
  ".git/hooks",
  ".git/config",
  ".gitmodules",
  ".claude",
  ".vscode",
  ".idea",
];

/**
 * Shell start-up files: read-only wherever they exist in a writable root, and
 * uncreatable in the home folder when it is writable (a shell reads them only there).
 */
export const SHELL_STARTUP_FILES: readonly string[] = [
  ".bashrc",
  ".bash_profile",
  ".bash_login",
  ".bash_logout",
  ".profile",
  ".zshrc",
  ".zshenv",
  ".zprofile",
  ".zlogin",
  ".zlogout",
];

/** Most symbolic links followed while resolving one path (as the kernel's ELOOP limit). */
const MAX_LINKS = 40;

/** Options of {@link protectedPathOf}. */
export interface ProtectedPathOptions {
  /** Compare names ignoring case (case-insensitive file systems). Default: true on macOS and Windows. */
  ignoreCase?: boolean;
}

/**
 * The protected path that `path` (absolute) is or lies in, inside one of
 * `roots` (or anywhere when there are none), or undefined. Checks the path
 * as written (normalised) and its real path. Anything in a `.git` folder counts
 * (named by its first component there: `.git/config`, `.git/commondir`, `.git/modules`), and so
 * does a `.git` written as a file (it could point git at another folder); so does a shell start-up file
 * at any depth, and a protected name in a nested project.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { protectedPathOf } from "./protected_paths.ts";
 * assert.equal(protectedPathOf("/w/.git/../.git/hooks/pre-commit", ["/w"]), "/w/.git/hooks");
 * assert.equal(protectedPathOf("/w/.git/modules/sub/config", ["/w"]), "/w/.git/modules");
 * assert.equal(protectedPathOf("/w/.bashrc", ["/w"]), "/w/.bashrc");
 * assert.equal(protectedPathOf("/w/src/a.ts", ["/w"]), undefined);
 * ```
 */
export function protectedPathOf(
  path: string,
  roots: readonly string[] = [],
  options: ProtectedPathOptions = {},
): string | undefined {
  const ignoreCase = options.ignoreCase ?? (Deno.build.os === "darwin" || Deno.build.os === "windows");
  const written = resolve(path);
  const real = realPathOf(written);
  const bases = roots.length ? roots.flatMap((r) => [resolve(r), realPathOf(resolve(r)) ?? r]) : [sep];
  for (const candidate of real && real !== written ? [written, real] : [written]) {
    for (const base of bases) {
      const rel = relative(base, candidate);
      if (rel === ".." || rel.startsWith(`..${sep}`) || isAbsolute(rel)) continue;
      const hit = protectedPrefix(rel === "" ? [] : rel.split(sep), ignoreCase);
      if (hit !== undefined) return join(base, ...hit);
    }
  }
  return undefined;
}

/** The leading components of `parts` that name a protected path, if any. */
function protectedPrefix(parts: readonly string[], ignoreCase: boolean): string[] | undefined {
  const name = (s: string | undefined) => ignoreCase ? s?.toLowerCase() : s;
  const folders = new Set([".paddock", ".claude", ".vscode", ".idea"]);
  const files = new Set([".mcp.json", ".gitmodules", ...SHELL_STARTUP_FILES]);
  for (let i = 0; i < parts.length; i++) {
    const part = name(parts[i])!;
    const last = i === parts.length - 1;
    if (part === ".paddock" && name(parts[i + 1]) === "worktrees" && parts.length > i + 3) {
      i += 2; // EnterWorktree's checkout `.paddock/worktrees/<name>` is a root of its own: judge what is in it
      continue;
    }
    if (folders.has(part)) return parts.slice(0, i + 1);
    if (files.has(part) && last) return parts.slice(0, i + 1);
    // all of a git folder: besides hooks and config, commondir, config.worktree, modules/*/config,
    // worktrees/*/commondir and info/attributes can each make git run a program (a file tool never needs it)
    if (part === ".git") return parts.slice(0, Math.min(i + 2, parts.length));
  }
  return undefined;
}

/**
 * The real path of absolute `path`: each existing component's symbolic link
 * followed (dangling ones too, by their target), the missing rest appended.
 * Undefined when it cannot be told (a link loop, no permission to look).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { realPathOf } from "./protected_paths.ts";
 * assert.equal(realPathOf("/nonexistent-dir/a/../b"), "/nonexistent-dir/b");
 * ```
 */
export function realPathOf(path: string): string | undefined {
  const parts = path.split(sep).filter(Boolean);
  let current: string = sep;
  let links = 0;
  while (parts.length) {
    const part = parts.shift()!;
    if (part === ".") continue;
    if (part === "..") {
      current = dirname(current);
      continue;
    }
    const next = join(current, part);
    let info: Deno.FileInfo;
    try {
      info = Deno.lstatSync(next);
    } catch (err) {
      if (err instanceof Deno.errors.NotFound) return join(next, ...parts);
      return undefined;
    }
    if (!info.isSymlink) {
      current = next;
      continue;
    }
    if (++links > MAX_LINKS) return undefined;
    let target: string;
    try {
      target = Deno.readLinkSync(next);
    } catch {
      return undefined;
    }
    parts.unshift(...target.split(sep).filter(Boolean));
    if (isAbsolute(target)) current = sep;
  }
  return current;
}

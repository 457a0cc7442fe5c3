/**
 * The Bash working directory: checked before a command (it may have been
 * deleted) and taken from the file the shell writes on exit afterwards. It
 * must stay inside the workspace; when it leaves, it is reset to the first
 * root with a note.
 *
 * @module
 */
import type { Session } from "../../session/session.ts";

function isDir(path: string): boolean {
  try {
    return Deno.statSync(path).isDirectory;
  } catch {
    return false;
  }
}

/**
 * The directory to run in: the session's cwd, or the first root (with a note)
 * when the cwd no longer exists.
 *
 * @example
 * ```ts
 * import { Session } from "../../session/session.ts";
 * import { prepareCwd } from "./cwd.ts";
 * const s = new Session({ roots: [Deno.cwd()] });
 * console.assert(prepareCwd(s, []) === s.cwd);
 * ```
 */
export function prepareCwd(session: Session, notes: string[]): string {
  if (isDir(session.cwd)) return session.cwd;
  const gone = session.cwd;
  session.setCwd(session.roots[0]);
  notes.push(`Note: the working directory "${gone}" no longer exists, so it was reset to "${session.cwd}"`);
  return session.cwd;
}

/**
 * Applies the directory the shell ended in (read from `cwdFile`) to the
 * session; outside the workspace it resets to the first root with a note.
 * Returns the session's cwd afterwards.
 */
export function finalCwd(session: Session, cwdFile: string, notes: string[]): string {
  let dir = "";
  try {
    dir = Deno.readTextFileSync(cwdFile).trim();
  } catch {
    // the shell did not write it (killed, or `exec` replaced it)
  }
  if (dir === "" || dir === session.cwd) return session.cwd;
  if (!session.setCwd(dir)) {
    session.setCwd(session.roots[0]);
    notes.push(
      `Note: "${dir}" is outside the workspace, so the working directory was reset to "${session.cwd}"`,
    );
  }
  return session.cwd;
}

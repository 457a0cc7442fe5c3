/**
 * The write check the OS would make for the user. Our writes replace a file by
 * renaming a temp file over it, which needs only the folder to be writable, and
 * root may write anything; so a read-only file (0444) would be replaced unless we
 * check its mode ourselves first.
 *
 * @module
 */
import { PermissionDeniedError } from "../errors.ts";

/**
 * Throws {@link PermissionDeniedError} when the user may not write the file
 * `info` describes: as root, when the file's owner class has no write bit; as
 * anyone else, when the write bit of the class that applies (owner, group or
 * other) is clear. No-op where there are no POSIX modes (Windows).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { assertWritable } from "./writable.ts";
 * const dir = Deno.makeTempDirSync();
 * Deno.writeTextFileSync(`${dir}/ro.txt`, "x");
 * Deno.chmodSync(`${dir}/ro.txt`, 0o444);
 * assert.throws(() => assertWritable(Deno.statSync(`${dir}/ro.txt`), `${dir}/ro.txt`), /read-only/);
 * Deno.removeSync(dir, { recursive: true });
 * ```
 */
export function assertWritable(info: Deno.FileInfo, shown: string): void {
  if (info.mode === null || !info.isFile) return;
  let uid: number | null;
  let gid: number | null = null;
  try {
    uid = Deno.uid();
    gid = Deno.gid();
  } catch {
    uid = info.uid; // no --allow-sys for the ids: judge as the file's owner, the usual case in a workspace
  }
  if (uid === null) return;
  const mode = info.mode & 0o7777;
  let bit: number;
  if (uid === 0 || info.uid === uid) bit = 0o200;
  else if (info.gid !== null && info.gid === gid) bit = 0o020;
  // a supplementary group we cannot list may grant it: accept either bit
  else bit = (mode & 0o020) !== 0 ? 0o020 : 0o002;
  if ((mode & bit) === 0) {
    throw new PermissionDeniedError(
      `Cannot write "${shown}": it is read-only (mode 0${(mode & 0o777).toString(8).padStart(3, "0")})`,
    );
  }
}

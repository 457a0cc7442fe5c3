/**
 * Per-session read records, kept in a session slot: Read records what it saw
 * (mtime, size, content hash, whole or partial) so Write, Edit and
 * NotebookEdit can refuse a file that was not read or changed since.
 *
 * @module
 */
import { ConflictError } from "../errors.ts";
import type { Session } from "../session/session.ts";
import { sha256Hex } from "./text.ts";

/**
 * What a Read saw of one file.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { Session } from "../session/session.ts";
 * import { type ReadRecord, readRecords } from "./read_state.ts";
 * await using session = new Session({ roots: [Deno.cwd()] });
 * const record: ReadRecord = { mtimeMs: 1_700_000_000_000, size: 12, whole: true };
 * readRecords(session).set("/w/a.txt", record);
 * assert.equal(readRecords(session).get("/w/a.txt")?.size, 12);
 * ```
 */
export interface ReadRecord {
  /** Modification time at the read (ms since the epoch), null when the platform has none. */
  mtimeMs: number | null;
  /** Size in bytes at the read. */
  size: number;
  /** SHA-256 of the whole file at the read, when the whole file was loaded. */
  hash?: string;
  /** Whether the read showed the whole file (not a window of it). */
  whole: boolean;
}

/** The session slot key of the read records. */
export const READ_STATE_SLOT = "files.readState";

/**
 * The read records of a session, keyed by real path.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { readRecords } from "./read_state.ts";
 * import { Session } from "../session/session.ts";
 * const s = new Session({ roots: [Deno.cwd()] });
 * readRecords(s).set("/x", { mtimeMs: 1, size: 0, whole: true });
 * assert.ok(readRecords(s).has("/x"));
 * ```
 */
export function readRecords(session: Session): Map<string, ReadRecord> {
  return session.slot(READ_STATE_SLOT, () => new Map<string, ReadRecord>());
}

/** Records a read (or a write, which leaves the caller knowing the whole file). */
export function recordRead(session: Session, realPath: string, record: ReadRecord): void {
  readRecords(session).set(realPath, record);
}

/** Records the state after this session wrote `bytes` to `realPath`. */
export async function recordWrite(session: Session, realPath: string, bytes: Uint8Array): Promise<void> {
  const info = await Deno.stat(realPath);
  recordRead(session, realPath, {
    mtimeMs: info.mtime?.getTime() ?? null,
    size: info.size,
    hash: await sha256Hex(bytes),
    whole: true,
  });
}

/**
 * Throws unless `current` (the file's bytes now, with `info` its stat) is
 * what this session last read. A change of mtime alone is fine when the
 * read loaded the whole content and the content is unchanged.
 */
export async function assertFresh(
  session: Session,
  realPath: string,
  shownPath: string,
  info: Deno.FileInfo,
  current: Uint8Array,
  action: string,
): Promise<void> {
  const record = readRecords(session).get(realPath);
  if (!record) {
    throw new ConflictError(
      `"${shownPath}" has not been read in this session: use Read on it first, then ${action} it`,
    );
  }
  const mtimeMs = info.mtime?.getTime() ?? null;
  if (record.hash !== undefined) {
    if (record.size === current.length && (await sha256Hex(current)) === record.hash) return;
  } else if (record.mtimeMs === mtimeMs && record.size === info.size) {
    return;
  }
  throw new ConflictError(
    `"${shownPath}" changed on disk since it was read (by the user, a formatter or another call): Read it again, then ${action} it`,
  );
}

/**
 * Atomic file replacement (temp file in the same folder, fsync, rename, mode
 * kept) and a per-path lock so concurrent edits in one process are
 * serialised.
 *
 * A write killed before its rename leaves its temp file (`.<name>.<8 hex>.paddock-tmp`).
 * Each process notes the temp files it has in flight in a journal in the
 * private per-user output folder (`<per-user folder>/writes/<pid>-<start>.list`,
 * see `session/output_root.ts`); {@link cleanStaleTemps}, run when a runtime
 * starts, removes those a dead process left, and a write also clears old
 * temp files of ours in its own folder.
 *
 * @module
 */
import {
  closeSync,
  constants,
  fchmodSync,
  fchownSync,
  fsyncSync,
  lstatSync,
  mkdirSync,
  openSync,
  readdirSync,
  renameSync,
  type Stats,
  unlinkSync,
  write as writeCb,
} from "node:fs";
import { basename, dirname, join } from "node:path";
import { AbortedError } from "../errors.ts";
import { type DirHandle, inDir, openDirInside } from "./safe_fs.ts";
import { checkedOutputRoot, processStartTime } from "../session/output_root.ts";

/**
 * The options {@link atomicWriteFile} takes.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { atomicWriteFile, type AtomicWriteOptions } from "./atomic_write.ts";
 * const dir = await Deno.makeTempDir();
 * const options: AtomicWriteOptions = { createParents: true, signal: AbortSignal.timeout(10_000) };
 * await atomicWriteFile(`${dir}/deep/er/a.txt`, new TextEncoder().encode("hi"), options);
 * assert.equal(await Deno.readTextFile(`${dir}/deep/er/a.txt`), "hi");
 * await Deno.remove(dir, { recursive: true });
 * ```
 */
export interface AtomicWriteOptions {
  /** Aborts before the rename (the old file stays). */
  signal?: AbortSignal;
  /** Create missing parent folders. Default false. */
  createParents?: boolean;
}

/** A temp file of ours (see {@link atomicWriteFile}) untouched this long is a leftover of a killed write (ms). */
export const STALE_TEMP_MS: number = 60_000;
/** Folder entries looked at, at most, when clearing leftover temp files. */
const STALE_SCAN_LIMIT = 10_000;
const TEMP_NAME = /^\..+\.[0-9a-f]{8}\.paddock-tmp$/;
const { O_WRONLY, O_CREAT, O_EXCL, O_NOFOLLOW } = constants;

/**
 * Writes `data` to `path` so that a reader (or a crash) sees either the old
 * file or the new one, never a mix: the bytes go to a temp file in the same
 * folder, are fsynced, and the temp file is renamed over the target. An
 * existing file's permission bits are kept. Temp files of ours in that folder
 * left by a killed write (untouched for {@link STALE_TEMP_MS}) are removed
 * after the rename.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { atomicWriteFile } from "./atomic_write.ts";
 * const dir = Deno.makeTempDirSync();
 * await atomicWriteFile(`${dir}/a.txt`, new TextEncoder().encode("hi"));
 * assert.equal(Deno.readTextFileSync(`${dir}/a.txt`), "hi");
 * Deno.removeSync(dir, { recursive: true });
 * ```
 */
export async function atomicWriteFile(
  path: string,
  data: Uint8Array,
  options: AtomicWriteOptions = {},
): Promise<void> {
  const { signal } = options;
  const checkAbort = () => {
    if (signal?.aborted) throw signal.reason ?? new AbortedError("The write was aborted");
  };
  checkAbort();
  const dir = dirname(path), name = basename(path);
  // every step below happens inside the parent folder as opened and checked (files/safe_fs.ts):
  // a folder on the way swapped for a symbolic link cannot move the write elsewhere
  using folder = options.createParents ? makeDirsInside(dir) : openDirInside(dir);
  const tempName = `.${name}.${crypto.randomUUID().slice(0, 8)}.paddock-tmp`;
  const { fd, old } = inDir(folder, (at) => {
    let old: Stats | undefined;
    try {
      old = lstatSync(at(name));
    } catch (err) {
      if ((err as { code?: string }).code !== "ENOENT") throw err;
    }
    if (old?.isDirectory()) throw new Deno.errors.IsADirectory(`"${path}" is a directory`);
    // a new file gets 0o666 less the umask, as any new file; an existing file's mode is restored below
    const fd = openSync(at(tempName), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW, old ? 0o600 : 0o666);
    return { fd, old };
  });
  const noted = noteTemp(join(dir, tempName));
  let renamed = false;
  try {
    try {
      let off = 0;
      while (off < data.length) {
        checkAbort();
        off += await writeChunk(fd, data.subarray(off, Math.min(data.length, off + (1 << 22))));
      }
      fsyncSync(fd);
      if (old && !old.isSymbolicLink()) {
        fchmodSync(fd, old.mode & 0o7777);
        try {
          fchownSync(fd, old.uid, old.gid);
        } catch {
          // only root may give a file away; the mode is kept
        }
      }
    } finally {
      closeSync(fd);
    }
    checkAbort();
    inDir(folder, (at) => renameSync(at(tempName), at(name)));
    renamed = true;
    try {
      fsyncSync(folder.fd);
    } catch {
      // some platforms cannot sync a folder; the rename is still atomic
    }
  } finally {
    if (!renamed) {
      try {
        inDir(folder, (at) => unlinkSync(at(tempName)));
      } catch {
        // already gone
      }
    }
    if (noted) doneTemp();
  }
  removeStaleTemps(folder);
}

function writeChunk(fd: number, chunk: Uint8Array): Promise<number> {
  return new Promise((ok, fail) =>
    writeCb(fd, chunk, 0, chunk.length, null, (err, n) => err ? fail(err) : ok(n))
  );
}

/** Opens (and checks) folder `dir`, creating it and its missing parents inside checked folders. */
function makeDirsInside(dir: string): DirHandle {
  try {
    return openDirInside(dir);
  } catch (err) {
    if (!(err instanceof Deno.errors.NotFound) || dirname(dir) === dir) throw err;
  }
  {
    using parent = makeDirsInside(dirname(dir));
    inDir(parent, (at) => {
      try {
        mkdirSync(at(basename(dir)));
      } catch (err) {
        if ((err as { code?: string }).code !== "EEXIST") throw err;
      }
    });
  }
  return openDirInside(dir);
}

/**
 * Removes our temp files in `folder` that no write has touched for
 * {@link STALE_TEMP_MS} (a live write's temp is newer); best effort.
 */
function removeStaleTemps(folder: DirHandle): void {
  const cutoff = Date.now() - STALE_TEMP_MS;
  try {
    inDir(folder, (at, here) => {
      const names = readdirSync(here);
      let seen = 0;
      for (const n of names) {
        if (++seen > STALE_SCAN_LIMIT) return;
        if (!TEMP_NAME.test(n)) continue;
        const st = lstatSync(at(n));
        if (st.isFile() && st.mtimeMs < cutoff) unlinkSync(at(n));
      }
    });
  } catch {
    // an unreadable folder keeps its leftovers; the write itself succeeded
  }
}

/** Folder of the journals, inside the per-user output folder. */
const JOURNAL_DIR = "writes";
const JOURNAL_NAME = /^(\d+)-(\d*)\.list$/;
/** This process's journal: its path and how many of its temp files are in flight; null where there is none. */
let journal: { path: string; pending: number } | null | undefined;

/** Notes `temp` in this process's journal before it is made; returns whether it was noted. Best effort. */
function noteTemp(temp: string): boolean {
  if (journal === undefined) {
    journal = null;
    try {
      const root = checkedOutputRoot();
      if (root) {
        const dir = join(root, JOURNAL_DIR);
        Deno.mkdirSync(dir, { recursive: true, mode: 0o700 });
        journal = { path: join(dir, `${Deno.pid}-${processStartTime(Deno.pid) ?? ""}.list`), pending: 0 };
      }
    } catch {
      // no private folder: no journal, the folder sweep still runs
    }
  }
  if (!journal) return false;
  try {
    Deno.writeTextFileSync(journal.path, `${temp}\n`, { append: true, mode: 0o600 });
    journal.pending++;
    return true;
  } catch {
    return false;
  }
}

/** One noted temp file is renamed or removed; the journal goes once none is in flight. */
function doneTemp(): void {
  if (!journal || --journal.pending > 0) return;
  try {
    Deno.removeSync(journal.path);
  } catch {
    // already gone
  }
}

/**
 * What {@link cleanStaleTemps} did.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import type { StaleTempReport } from "./atomic_write.ts";
 * const report: StaleTempReport = { removed: ["/w/.a.txt.0badc0de.paddock-tmp"], journals: 1 };
 * assert.equal(report.removed.length, 1);
 * ```
 */
export interface StaleTempReport {
  /** Temp files removed. */
  removed: string[];
  /** Journals of dead processes that were read. */
  journals: number;
}

/**
 * Removes the temp files that writes of processes no longer running left
 * (killed before their rename), as their journals list them (see the module
 * doc): only names of our temp pattern, only regular files (a symbolic link
 * is never followed or removed), only untouched for `minAgeMs`. A journal
 * goes once nothing it lists is left. Best effort, blocking, cheap (it reads
 * the journals, it walks no folder); `createRuntime` runs it.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { cleanStaleTemps } from "./atomic_write.ts";
 * const base = await Deno.makeTempDir();
 * assert.deepEqual(cleanStaleTemps({ base }), { removed: [], journals: 0 });
 * await Deno.remove(base, { recursive: true });
 * ```
 */
export function cleanStaleTemps(options: { base?: string; minAgeMs?: number } = {}): StaleTempReport {
  const report: StaleTempReport = { removed: [], journals: 0 };
  const root = checkedOutputRoot(options.base);
  if (!root) return report;
  const dir = join(root, JOURNAL_DIR);
  const cutoff = Date.now() - (options.minAgeMs ?? STALE_TEMP_MS);
  let names: string[];
  try {
    names = [...Deno.readDirSync(dir)].filter((e) => e.isFile).map((e) => e.name);
  } catch {
    return report; // no journal yet
  }
  for (const name of names) {
    const m = JOURNAL_NAME.exec(name);
    if (!m) continue;
    const pid = Number(m[1]);
    if (pid === Deno.pid) continue;
    const start = processStartTime(pid);
    if (start !== undefined && (m[2] === "" || start === m[2])) continue; // its writer still runs
    report.journals++;
    const path = join(dir, name);
    const kept: string[] = [];
    let lines: string[];
    try {
      lines = Deno.readTextFileSync(path).split("\n").filter((l) => l !== "");
    } catch {
      continue;
    }
    for (const temp of new Set(lines)) {
      if (!temp.startsWith("/") || !TEMP_NAME.test(basename(temp))) continue;
      try {
        const st = Deno.lstatSync(temp);
        if (!st.isFile) continue; // a link or a folder now: not ours to touch
        if ((st.mtime?.getTime() ?? 0) >= cutoff) {
          kept.push(temp);
          continue;
        }
        Deno.removeSync(temp);
        report.removed.push(temp);
      } catch {
        // gone already, or not ours to remove
      }
    }
    try {
      if (kept.length) Deno.writeTextFileSync(path, kept.map((t) => `${t}\n`).join(""));
      else Deno.removeSync(path);
    } catch {
      // another runtime cleaned it first
    }
  }
  return report;
}

const locks = new Map<string, Promise<unknown>>();

/**
 * Runs `fn` while holding this process's lock on `key` (a real path): calls
 * on one file run one after another, so a read-modify-write is never
 * interleaved with another in this process.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { withFileLock } from "./atomic_write.ts";
 * const order: number[] = [];
 * await Promise.all([1, 2].map((n) =>
 *   withFileLock("/k", async () => {
 *     order.push(n);
 *   })
 * ));
 * assert.equal(order.join(), "1,2");
 * ```
 */
export function withFileLock<T>(key: string, fn: () => Promise<T>): Promise<T> {
  const previous = locks.get(key) ?? Promise.resolve();
  const run = previous.then(fn, fn);
  const tail = run.catch(() => {});
  locks.set(key, tail);
  tail.then(() => {
    if (locks.get(key) === tail) locks.delete(key);
  });
  return run;
}

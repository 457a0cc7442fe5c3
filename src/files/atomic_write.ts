/**
 * Atomic file replacement (temp file in the same folder, fsync, rename, mode
 * kept) and a per-path lock so concurrent edits in one process are
 * serialised.
 *
 * @module
 */
import { basename, dirname, join } from "node:path";
import { AbortedError } from "../errors.ts";

/** The options {@link atomicWriteFile} takes. */
export interface AtomicWriteOptions {
  /** Aborts before the rename (the old file stays). */
  signal?: AbortSignal;
  /** Create missing parent folders. Default false. */
  createParents?: boolean;
}

/** A temp file of ours (see {@link atomicWriteFile}) untouched this long is a leftover of a killed write (ms). */
export const STALE_TEMP_MS: number = 10 * 60_000;
/** Folder entries looked at, at most, when clearing leftover temp files. */
const STALE_SCAN_LIMIT = 10_000;
const TEMP_NAME = /^\..+\.[0-9a-f]{8}\.paddock-tmp$/;

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
 * import { atomicWriteFile } from "./atomic_write.ts";
 * const dir = Deno.makeTempDirSync();
 * await atomicWriteFile(`${dir}/a.txt`, new TextEncoder().encode("hi"));
 * console.assert(Deno.readTextFileSync(`${dir}/a.txt`) === "hi");
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
  const dir = dirname(path);
  if (options.createParents) await Deno.mkdir(dir, { recursive: true });
  let mode: number | undefined;
  try {
    mode = (await Deno.stat(path)).mode ?? undefined;
  } catch (err) {
    if (!(err instanceof Deno.errors.NotFound)) throw err;
  }
  const temp = join(dir, `.${basename(path)}.${crypto.randomUUID().slice(0, 8)}.paddock-tmp`);
  // a new file gets 0o666 less the umask, as any new file; an existing file's mode is restored below
  const file = await Deno.open(temp, {
    write: true,
    createNew: true,
    mode: mode === undefined ? 0o666 : 0o600,
  });
  let renamed = false;
  try {
    try {
      let off = 0;
      while (off < data.length) {
        checkAbort();
        off += await file.write(data.subarray(off, Math.min(data.length, off + (1 << 22))));
      }
      await file.sync();
      if (mode !== undefined) await Deno.chmod(temp, mode & 0o7777);
    } finally {
      file.close();
    }
    checkAbort();
    await Deno.rename(temp, path);
    renamed = true;
    await syncDir(dir);
  } finally {
    if (!renamed) await Deno.remove(temp).catch(() => {});
  }
  await removeStaleTemps(dir);
}

/**
 * Removes our temp files in `dir` that no write has touched for
 * {@link STALE_TEMP_MS} (a live write's temp is newer); best effort.
 */
async function removeStaleTemps(dir: string): Promise<void> {
  const cutoff = Date.now() - STALE_TEMP_MS;
  let seen = 0;
  try {
    for await (const e of Deno.readDir(dir)) {
      if (++seen > STALE_SCAN_LIMIT) return;
      if (!e.isFile || !TEMP_NAME.test(e.name)) continue;
      const temp = join(dir, e.name);
      const mtime = (await Deno.lstat(temp)).mtime?.getTime();
      if (mtime !== undefined && mtime < cutoff) await Deno.remove(temp).catch(() => {});
    }
  } catch {
    // an unreadable folder keeps its leftovers; the write itself succeeded
  }
}

/** fsyncs a folder so the rename itself is durable; best effort. */
async function syncDir(dir: string): Promise<void> {
  try {
    const handle = await Deno.open(dir, { read: true });
    try {
      await handle.sync();
    } finally {
      handle.close();
    }
  } catch {
    // some platforms cannot open or sync a folder; the rename is still atomic
  }
}

const locks = new Map<string, Promise<unknown>>();

/**
 * Runs `fn` while holding this process's lock on `key` (a real path): calls
 * on one file run one after another, so a read-modify-write is never
 * interleaved with another in this process.
 *
 * @example
 * ```ts
 * import { withFileLock } from "./atomic_write.ts";
 * const order: number[] = [];
 * await Promise.all([1, 2].map((n) => withFileLock("/k", async () => { order.push(n); })));
 * console.assert(order.join() === "1,2");
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

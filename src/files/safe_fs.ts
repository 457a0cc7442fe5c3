/**
 * File access that decides on what was actually opened, not on the path
 * string (threat model P1): a path component swapped for a symlink between
 * the containment check (`session/workspace.ts`) and the use must not move a
 * read or a write elsewhere.
 *
 * - A read opens the file with `O_NOFOLLOW | O_NONBLOCK`, refuses anything but
 *   a regular file (fstat: no fifo, device or folder), then checks that the
 *   opened descriptor is the file at the expected real path: the kernel's name
 *   for it (`/proc/self/fd/N`) equals that path and its device and inode
 *   equal an `lstat` of it. Bytes then come from that descriptor only.
 * - A write opens the parent folder with `O_DIRECTORY | O_NOFOLLOW`, checks it
 *   the same way, and creates the temp file (`O_CREAT | O_EXCL | O_NOFOLLOW`)
 *   and renames it through `/proc/self/fd/<dir>/<name>` ({@link inDir}): the
 *   kernel resolves that to the opened folder itself, so only the last
 *   component is looked up, in the folder that was checked.
 *
 * What holds where: Deno lets a program use `/proc/self/fd` paths only under
 * `-A` (its scoped `--allow-read/--allow-write` ask for "all access" there,
 * symlinks cannot be made under scoped flags, and a relative path is made
 * absolute before the system call, so no Deno code can act relative to an
 * opened folder; a symbolic link to `/proc/self/fd` made for it does not help
 * either: Deno then resolves the link itself and goes by the resolved path, or
 * refuses). Under `-A` on Linux the above is race-free. Under scoped flags, and
 * where there is no `/proc` (macOS), the same checks run on paths:
 * the opened file or folder must match the real path before and after
 * (`verifyFd`), and a write goes by path right after its folder is checked
 * again. That narrows the window to a few system calls; it does not close it
 * (tests/security/p1_races_test.ts measures it). A checked folder moved whole
 * out of the roots (which needs write access outside) is not caught.
 *
 * @module
 */
import {
  closeSync,
  constants,
  fstatSync,
  lstatSync,
  openSync,
  read as readCb,
  readlinkSync,
  realpathSync,
  type Stats,
} from "node:fs";
import { PermissionDeniedError } from "../errors.ts";

const { O_RDONLY, O_NOFOLLOW, O_DIRECTORY, O_NONBLOCK } = constants;

/** Whether `/proc/self/fd/N` paths may be used (Linux under `-A`); probed once. */
let procFd: boolean | undefined;
const fdRoot = "/proc/self/fd";

function procPathOf(fd: number): string | undefined {
  if (procFd === false) return undefined;
  try {
    const link = readlinkSync(`${fdRoot}/${fd}`);
    procFd = true;
    return link;
  } catch (err) {
    // once it worked, a failure refuses the access rather than falling back to paths
    if (procFd === true) throw new PermissionDeniedError(`Cannot check what descriptor ${fd} opened: ${err}`);
    procFd = false;
    return undefined;
  }
}

function sameFile(a: Stats, b: Stats): boolean {
  return a.dev === b.dev && a.ino === b.ino;
}

function changed(path: string): PermissionDeniedError {
  return new PermissionDeniedError(
    `Cannot access "${path}": it changed while it was being opened (a symbolic link or a swapped folder): refused`,
  );
}

/** Maps node's error codes to Deno's error classes the callers know. */
function denoError(err: unknown, path: string): unknown {
  const code = (err as { code?: string })?.code;
  if (code === "ENOENT") return new Deno.errors.NotFound(`File does not exist: "${path}"`);
  if (code === "ELOOP" || code === "ENOTDIR") return changed(path);
  if (code === "EACCES" || code === "EPERM") {
    return new Deno.errors.PermissionDenied(`Permission denied: "${path}"`);
  }
  return err;
}

/**
 * Throws unless descriptor `fd` is the file or folder at real path `real`,
 * reached without a symlink. With `/proc/self/fd` the kernel's own name for
 * what was opened decides; without it (Deno's scoped flags refuse every
 * `/proc/self/fd` path) the real path of the name must be `real` before and
 * after an `lstat` that must match the descriptor: a narrower window, not none.
 */
function verifyFd(fd: number, real: string, st: Stats): void {
  const where = procPathOf(fd);
  if (where !== undefined) {
    if (where !== real || !sameFile(lstatOrChanged(real), st)) throw changed(real);
    return;
  }
  if (realOrChanged(real) !== real || !sameFile(lstatOrChanged(real), st) || realOrChanged(real) !== real) {
    throw changed(real);
  }
}

function lstatOrChanged(path: string): Stats {
  try {
    return lstatSync(path);
  } catch {
    throw changed(path);
  }
}

function realOrChanged(path: string): string {
  try {
    return realpathSync(path);
  } catch {
    throw changed(path);
  }
}

function openVerified(real: string, flags: number): { fd: number; st: Stats } {
  let fd: number;
  try {
    fd = openSync(real, flags);
  } catch (err) {
    throw denoError(err, real);
  }
  try {
    const st = fstatSync(fd);
    verifyFd(fd, real, st);
    return { fd, st };
  } catch (err) {
    closeSync(fd);
    throw err;
  }
}

function toFileInfo(s: Stats): Deno.FileInfo {
  return {
    isFile: s.isFile(),
    isDirectory: s.isDirectory(),
    isSymlink: s.isSymbolicLink(),
    size: s.size,
    mtime: s.mtime,
    atime: s.atime,
    birthtime: s.birthtime,
    ctime: s.ctime,
    dev: s.dev,
    ino: s.ino,
    mode: s.mode,
    nlink: s.nlink,
    uid: s.uid,
    gid: s.gid,
    rdev: s.rdev,
    blksize: s.blksize,
    blocks: s.blocks,
    isBlockDevice: s.isBlockDevice(),
    isCharDevice: s.isCharacterDevice(),
    isFifo: s.isFIFO(),
    isSocket: s.isSocket(),
  };
}

/**
 * A regular file opened by {@link openFileInside}: the `read`/`stat` half of a
 * `Deno.FsFile`, on a checked descriptor.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { openFileInside, type SafeFile } from "./safe_fs.ts";
 * const dir = await Deno.realPath(await Deno.makeTempDir());
 * await Deno.writeTextFile(`${dir}/a.txt`, "hi");
 * using file: SafeFile = openFileInside(`${dir}/a.txt`);
 * assert.equal((await file.stat()).size, 2);
 * await Deno.remove(dir, { recursive: true });
 * ```
 */
export interface SafeFile extends Disposable {
  /** Reads into `p` from the current position; null at the end. */
  read(p: Uint8Array): Promise<number | null>;
  /** fstat of the opened file. */
  stat(): Promise<Deno.FileInfo>;
  /** Reads the rest of the file (sized from its stat, grown if it grew). */
  readAll(signal?: AbortSignal): Promise<Uint8Array>;
  /** Closes the descriptor (also on dispose). */
  close(): void;
}

/**
 * Opens the regular file at `real` (a real path, as `resolveSafePath` returns)
 * for reading, and checks the opened descriptor is that file: refuses a
 * symlink, a swapped folder on the way, a fifo, device, socket or folder.
 * Throws `Deno.errors.NotFound` when it does not exist.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { openFileInside } from "./safe_fs.ts";
 * const dir = await Deno.realPath(await Deno.makeTempDir());
 * await Deno.writeTextFile(`${dir}/a.txt`, "hi");
 * await Deno.symlink(`${dir}/a.txt`, `${dir}/link`);
 * using file = openFileInside(`${dir}/a.txt`);
 * assert.equal(new TextDecoder().decode(await file.readAll()), "hi");
 * assert.throws(() => openFileInside(`${dir}/link`));
 * await Deno.remove(dir, { recursive: true });
 * ```
 */
export function openFileInside(real: string): SafeFile {
  const { fd, st } = openVerified(real, O_RDONLY | O_NOFOLLOW | O_NONBLOCK);
  if (!st.isFile()) {
    closeSync(fd);
    throw new PermissionDeniedError(
      `"${real}" is ${
        st.isDirectory() ? "a directory" : "a device, socket or pipe"
      }, not a regular file: refused`,
    );
  }
  let open = true;
  const file: SafeFile = {
    read: (p) =>
      new Promise((ok, fail) =>
        readCb(fd, p, 0, p.length, null, (err, n) => err ? fail(err) : ok(n === 0 && p.length > 0 ? null : n))
      ),
    stat: () => Promise.resolve(toFileInfo(fstatSync(fd))),
    readAll: (signal) => readAll(file, signal),
    close: () => {
      if (open) closeSync(fd);
      open = false;
    },
    [Symbol.dispose]: () => file.close(),
  };
  return file;
}

/**
 * A folder opened and checked by {@link openDirInside}.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { type DirHandle, openDirInside } from "./safe_fs.ts";
 * const dir = await Deno.realPath(await Deno.makeTempDir());
 * using handle: DirHandle = openDirInside(dir);
 * assert.equal(handle.real, dir);
 * await Deno.remove(dir);
 * ```
 */
export interface DirHandle extends Disposable {
  /** The descriptor. */
  readonly fd: number;
  /** The folder's real path, as checked. */
  readonly real: string;
}

/**
 * Opens the folder at `real` (a real path) and checks the descriptor is that
 * folder, reached without a symlink.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { openDirInside } from "./safe_fs.ts";
 * const dir = await Deno.realPath(await Deno.makeTempDir());
 * using handle = openDirInside(dir);
 * assert.ok(handle.fd > 2);
 * await Deno.remove(dir);
 * ```
 */
export function openDirInside(real: string): DirHandle {
  const { fd } = openVerified(real, O_RDONLY | O_DIRECTORY | O_NOFOLLOW);
  let open = true;
  return {
    fd,
    real,
    [Symbol.dispose]: () => {
      if (open) closeSync(fd);
      open = false;
    },
  };
}

/**
 * Runs `fn` (synchronous) with `at(name)`, a path that reaches `name` inside
 * the checked folder `dir` whatever happens to the folder's path meanwhile:
 * `/proc/self/fd/<fd>/<name>` where Deno allows it, else the bare name with
 * the working directory moved into the folder (and checked to be it) for the
 * duration of `fn`. `name` must be a single component; `here` names the folder itself.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { writeFileSync } from "node:fs";
 * import { inDir, openDirInside } from "./safe_fs.ts";
 * const dir = await Deno.realPath(await Deno.makeTempDir());
 * using handle = openDirInside(dir);
 * inDir(handle, (at) => writeFileSync(at("a.txt"), "hi"));
 * assert.equal(await Deno.readTextFile(`${dir}/a.txt`), "hi");
 * await Deno.remove(dir, { recursive: true });
 * ```
 */
export function inDir<T>(dir: DirHandle, fn: (at: (name: string) => string, here: string) => T): T {
  const check = (name: string) => {
    if (name === "" || name === "." || name === ".." || name.includes("/")) {
      throw new PermissionDeniedError(`"${name}" is not a single path component`);
    }
    return name;
  };
  if (procPathOf(dir.fd) !== undefined) {
    return fn((name) => `${fdRoot}/${dir.fd}/${check(name)}`, `${fdRoot}/${dir.fd}`);
  }
  // no /proc/self/fd: check the folder again right before the use, then go by path (see the module doc)
  verifyFd(dir.fd, dir.real, fstatSync(dir.fd));
  return fn((name) => `${dir.real === "/" ? "" : dir.real}/${check(name)}`, dir.real);
}

/** Reads a whole open file into one buffer (sized from its stat, grown if the file grew). */
export async function readAll(
  file: Pick<Deno.FsFile, "read" | "stat">,
  signal?: AbortSignal,
): Promise<Uint8Array> {
  let buf = new Uint8Array(Math.max((await file.stat()).size, 0) + 1);
  let total = 0;
  for (;;) {
    signal?.throwIfAborted();
    if (total === buf.length) {
      const bigger = new Uint8Array(buf.length * 2);
      bigger.set(buf);
      buf = bigger;
    }
    const n = await file.read(buf.subarray(total, Math.min(buf.length, total + (1 << 22))));
    if (n === null) return buf.subarray(0, total);
    total += n;
  }
}

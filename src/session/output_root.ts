/**
 * The private folder output files go to (THREATS.md P9): spilled outputs,
 * task logs, full outputs of truncated results.
 *
 * Layout: `<base>/paddock-<uid>/<session id>/…`, where `<base>` is
 * `XDG_RUNTIME_DIR`, else `TMPDIR`, else `/tmp`. The per-user folder is made
 * 0700 and checked before each session uses it: it must be a real folder (not
 * a symbolic link), owned by us, mode 0700 (our own folder with a wider mode
 * is narrowed). When it fails the check (another user made it first, a
 * symbolic link was planted), a fresh private folder `paddock-<uid>-XXXX` is
 * made instead (mkdtemp: 0700, unguessable) and the session says so. The
 * session folder is removed when the session closes, unless the user gave
 * an output folder (`--output-dir`, `outputDir`), which is used as it is.
 *
 * The per-user name needs the uid (`--allow-sys=uid`) and the base the
 * variables above (`--allow-env`); without them the name is `paddock` under
 * `/tmp`, still checked the same way.
 *
 * @module
 */
import { join } from "node:path";
import { UnavailableError } from "../errors.ts";
import { pathExists } from "./workspace.ts";

function envVar(name: string): string | undefined {
  try {
    return Deno.env.get(name) || undefined;
  } catch {
    return undefined; // not granted
  }
}

function currentUid(): number | undefined {
  try {
    return Deno.uid() ?? undefined;
  } catch {
    return undefined; // not granted (--allow-sys=uid) or not POSIX
  }
}

/**
 * The folder under which the per-user output folder lives: `XDG_RUNTIME_DIR`,
 * else `TMPDIR`, else `/tmp`.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { outputBase } from "./output_root.ts";
 * assert.ok(outputBase().startsWith("/"));
 * ```
 */
export function outputBase(): string {
  return envVar("XDG_RUNTIME_DIR") ?? envVar("TMPDIR") ?? "/tmp";
}

/**
 * The per-user output folder sessions use by default: `<base>/paddock-<uid>`
 * (see the module doc). Pure naming: nothing is created or checked. The Deno
 * flags grant this folder.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { defaultOutputRoot } from "./output_root.ts";
 * assert.match(defaultOutputRoot("/tmp"), /^\/tmp\/paddock(-\d+)?$/);
 * ```
 */
export function defaultOutputRoot(base: string = outputBase()): string {
  const uid = currentUid();
  return join(base, uid === undefined ? "paddock" : `paddock-${uid}`);
}

/**
 * Why `dir` is not a private folder of ours, or undefined when it is. Our own
 * folder with a wider mode is narrowed to 0700 first. Never follows a
 * symbolic link.
 */
function notPrivate(dir: string): string | undefined {
  let st: Deno.FileInfo;
  try {
    st = Deno.lstatSync(dir);
  } catch (err) {
    return `cannot be inspected: ${(err as Error).message}`;
  }
  if (st.isSymlink) return "is a symbolic link";
  if (!st.isDirectory) return "is not a folder";
  const uid = currentUid();
  if (uid !== undefined && st.uid !== null && st.uid !== uid) return `belongs to uid ${st.uid}, not ${uid}`;
  const mode = (st.mode ?? 0o700) & 0o777;
  if (mode !== 0o700) {
    try {
      Deno.chmodSync(dir, 0o700);
    } catch {
      return `has mode 0${mode.toString(8)}, not 0700`;
    }
  }
  return undefined;
}

/**
 * The per-user output folder, made (0700) when missing, or undefined when it
 * exists but fails the check (see the module doc).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { checkedOutputRoot } from "./output_root.ts";
 * const base = await Deno.makeTempDir();
 * const root = checkedOutputRoot(base);
 * assert.equal((await Deno.stat(root!)).mode! & 0o777, 0o700);
 * await Deno.remove(base, { recursive: true });
 * ```
 */
export function checkedOutputRoot(base: string = outputBase()): string | undefined {
  return checkRoot(defaultOutputRoot(base)).reason === undefined ? defaultOutputRoot(base) : undefined;
}

function checkRoot(root: string): { reason?: string } {
  try {
    Deno.mkdirSync(root, { mode: 0o700 });
  } catch (err) {
    if (!(err instanceof Deno.errors.AlreadyExists)) {
      return { reason: `cannot be made: ${(err as Error).message}` };
    }
  }
  return { reason: notPrivate(root) };
}

/**
 * A new private folder for one session's output files.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { makeSessionOutputDir } from "./output_root.ts";
 * const base = await Deno.makeTempDir();
 * const made = makeSessionOutputDir("s1", base);
 * assert.ok(made.dir.endsWith("/s1") && made.refused === undefined);
 * await Deno.remove(base, { recursive: true });
 * ```
 */
export interface SessionOutputDir {
  /** The session's folder (0700). */
  dir: string;
  /** What to remove when the session closes (`dir`, or the whole fallback folder). */
  removeOnClose: string;
  /** Why the per-user folder was not used, when it was not. */
  refused?: string;
}

/**
 * Makes the folder of session `id`: `<per-user folder>/<id>`, or, when the
 * per-user folder fails its check, a fresh `paddock-<uid>-XXXX` folder. The
 * session folder itself is checked too (ours, not a link). Throws an
 * {@link UnavailableError} when no private folder can be made.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { makeSessionOutputDir } from "./output_root.ts";
 * const base = await Deno.makeTempDir();
 * Deno.mkdirSync(`${base}/paddock-${Deno.uid()}`, { mode: 0o777 });
 * Deno.chmodSync(`${base}/paddock-${Deno.uid()}`, 0o777);
 * const made = makeSessionOutputDir("s1", base);
 * assert.equal((await Deno.stat(`${base}/paddock-${Deno.uid()}`)).mode! & 0o777, 0o700, "our own folder is narrowed");
 * assert.equal((await Deno.stat(made.dir)).mode! & 0o777, 0o700);
 * await Deno.remove(base, { recursive: true });
 * ```
 */
export function makeSessionOutputDir(id: string, base: string = outputBase()): SessionOutputDir {
  const root = defaultOutputRoot(base);
  const { reason } = checkRoot(root);
  if (reason === undefined) {
    const dir = join(root, id);
    const why = makeChild(dir, root);
    if (why === undefined) {
      writeOwner(dir);
      return { dir, removeOnClose: dir };
    }
    return fallback(base, root, `"${dir}" ${why}`);
  }
  return fallback(base, root, `"${root}" ${reason}`);
}

/** Makes `dir` (0700) inside `parent` and checks that it is ours: the same owner as `parent`, not a link. */
function makeChild(dir: string, parent: string): string | undefined {
  try {
    Deno.mkdirSync(dir, { mode: 0o700 });
  } catch (err) {
    if (!(err instanceof Deno.errors.AlreadyExists)) return `cannot be made: ${(err as Error).message}`;
  }
  const why = notPrivate(dir);
  if (why) return why;
  // without the uid (no --allow-sys), a folder we just made tells who we are
  if (Deno.lstatSync(dir).uid !== Deno.lstatSync(parent).uid) return "is not owned like its parent";
  return undefined;
}

function fallback(base: string, root: string, refused: string): SessionOutputDir {
  let dir: string;
  try {
    dir = Deno.makeTempDirSync({ dir: base, prefix: `${root.slice(base.length).replace(/^\//, "")}-` });
  } catch (err) {
    throw new UnavailableError(
      `Cannot make a private folder for output files: ${refused}, and no other could be made in "${base}": ${
        (err as Error).message
      }: remove it or give an output folder (--output-dir)`,
      { cause: err },
    );
  }
  Deno.chmodSync(dir, 0o700);
  return { dir, removeOnClose: dir, refused };
}

/** The file in a session folder that names the process owning it (`<pid> <start time>`). */
const OWNER_FILE = ".owner";
/** A session folder without a readable owner is left alone until it is this old (ms). */
const UNOWNED_STALE_MS = 24 * 60 * 60 * 1000;

/**
 * The start time of process `pid` (field 22 of `/proc/<pid>/stat`, in clock
 * ticks since boot), or undefined when it is gone or cannot be read (no
 * `/proc`, or Deno refuses it: it grants `/proc/<pid>` only with `--allow-all`).
 * With the pid it names one process for good: a reused pid starts later.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { processStartTime } from "./output_root.ts";
 * if (Deno.build.os === "linux") assert.match(processStartTime(Deno.pid) ?? "", /^\d+$/);
 * assert.equal(processStartTime(2 ** 30), undefined);
 * ```
 */
export function processStartTime(pid: number): string | undefined {
  try {
    const stat = Deno.readTextFileSync(`/proc/${pid}/stat`);
    return stat.slice(stat.lastIndexOf(")") + 2).split(" ")[19];
  } catch {
    return undefined;
  }
}

function writeOwner(dir: string): void {
  try {
    Deno.writeTextFileSync(join(dir, OWNER_FILE), `${Deno.pid} ${processStartTime(Deno.pid) ?? ""}\n`, {
      mode: 0o600,
    });
  } catch {
    // best effort: without it, a crash leaves the folder for a day-old sweep
  }
}

/**
 * Removes the session folders that a crashed run left in the per-user output
 * folder: those whose owning process is gone (or, with no owner to ask, that
 * nobody touched for a day). Links are never followed. Returns the folders removed.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { cleanStaleSessions, makeSessionOutputDir } from "./output_root.ts";
 * const base = await Deno.makeTempDir();
 * const mine = makeSessionOutputDir(crypto.randomUUID(), base);
 * const dead = makeSessionOutputDir(crypto.randomUUID(), base);
 * Deno.writeTextFileSync(`${dead.dir}/.owner`, "1073741824 1\n"); // a pid that cannot exist
 * assert.deepEqual(cleanStaleSessions(base), [dead.dir]);
 * assert.ok(Deno.statSync(mine.dir).isDirectory);
 * await Deno.remove(base, { recursive: true });
 * ```
 */
export function cleanStaleSessions(base: string = outputBase()): string[] {
  const root = checkedOutputRoot(base);
  if (!root) return [];
  const removed: string[] = [];
  let entries: Deno.DirEntry[];
  try {
    entries = [...Deno.readDirSync(root)];
  } catch {
    return removed;
  }
  for (const entry of entries) {
    if (!entry.isDirectory) continue;
    const dir = join(root, entry.name);
    // a session's folder: it names its owner, or it has a session id's shape (the default ids are UUIDs)
    if (!pathExists(join(dir, OWNER_FILE)) && !UUID.test(entry.name)) continue;
    if (!isStale(dir)) continue;
    try {
      Deno.removeSync(dir, { recursive: true });
      removed.push(dir);
    } catch {
      // another start removed it first, or it is not ours to remove
    }
  }
  return removed;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

function isStale(dir: string): boolean {
  let owner: string;
  try {
    owner = Deno.readTextFileSync(join(dir, OWNER_FILE)).trim();
  } catch {
    try {
      const st = Deno.lstatSync(dir);
      return st.isDirectory && Date.now() - (st.mtime?.getTime() ?? Date.now()) > UNOWNED_STALE_MS;
    } catch {
      return false;
    }
  }
  const [pidText, start = ""] = owner.split(" ");
  const pid = Number(pidText);
  if (!Number.isInteger(pid) || pid <= 0) return false;
  if (pid === Deno.pid) return false;
  const now = processStartTime(pid);
  if (now !== undefined) return start !== "" && now !== start; // alive, unless the pid was reused
  // gone, or /proc cannot be read here: only a process we could see before counts as gone
  return processStartTime(Deno.pid) !== undefined;
}

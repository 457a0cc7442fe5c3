/**
 * The mount plan that keeps protected paths read-only inside bubblewrap, also
 * when they do not exist yet (THREATS.md P3), and hides credential stores
 * (P6).
 *
 * **Existing protected paths** are bound read-only onto themselves after the
 * writable bind of their root. Every folder between the root and a protected
 * path is bound onto itself too ("pinned"): a mount point cannot be renamed or
 * removed, so `mv .git .git2 && mkdir -p .git/hooks` fails instead of planting
 * a fresh hooks folder.
 *
 * **Missing protected paths** need something to mount on, and on Linux a mount
 * point is a real directory entry: bubblewrap would create it in the host
 * folder (the root is bound from the host) and leave it there, and removing it
 * from outside while a sandbox runs detaches that sandbox's mount. So Paddock
 * makes the entry itself, as a recognizable placeholder (an empty folder with
 * mode 01755, or a read-only file with known content where a file is read),
 * holds a shared `flock` on it while the command runs, and the last run that
 * releases it removes it. Concurrent runs (other sessions, other Paddock
 * processes) share a placeholder; a crashed run's placeholder is adopted and
 * removed by the next run. Empty folders are invisible to `git status`, so the
 * placeholders never show up as untracked files, inside or outside.
 *
 * A protected path that is a symbolic link inside a writable root cannot be
 * kept: the link itself could be replaced. The sandbox then refuses to start
 * and says why.
 *
 * @module
 */
import { dirname, isAbsolute, join, resolve } from "node:path";
import { UnavailableError } from "../errors.ts";
import type { MountOp } from "./bubblewrap.ts";
import { PROTECTED_PATHS, SHELL_STARTUP_FILES } from "../permissions/protected_paths.ts";

// the lists live with the permission decision (a lower layer), which also keeps the file tools off them
export { PROTECTED_PATHS, SHELL_STARTUP_FILES } from "../permissions/protected_paths.ts";

/** Files in a writable home folder that configure programs the user runs unsandboxed. */
const HOME_CONFIG_FILES: readonly string[] = [".gitconfig", ".config/git"];

/**
 * Credential stores hidden inside the sandbox (relative to the home folder, or
 * absolute): folders become an empty tmpfs, files read as empty.
 */
export const DEFAULT_HIDDEN_PATHS: readonly string[] = [
  ".ssh",
  ".aws",
  ".gnupg",
  ".netrc",
  ".config/gcloud",
  ".docker",
  ".kube",
  ".npmrc",
  ".git-credentials",
  ".config/paddock",
  ".config/gh",
  ".pypirc",
  ".cargo/credentials",
  ".cargo/credentials.toml",
  ".azure",
  ".vault-token",
  ".password-store",
  ".local/share/keyrings",
  // readable by root only; a sandbox run as root keeps root's file ownership
  "/etc/shadow",
  "/etc/gshadow",
];

/**
 * {@link DEFAULT_HIDDEN_PATHS} plus this host's SSH host private keys
 * (`/etc/ssh/ssh_host_*_key`, readable by root only).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { defaultHiddenPaths } from "./protect.ts";
 * assert.ok(defaultHiddenPaths().includes(".ssh"));
 * ```
 */
export function defaultHiddenPaths(): string[] {
  const keys: string[] = [];
  try {
    for (const entry of Deno.readDirSync("/etc/ssh")) {
      if (/^ssh_host_.*_key$/.test(entry.name)) keys.push(`/etc/ssh/${entry.name}`);
    }
  } catch (err) {
    // not listable under the granted permissions: hide the usual names (missing ones are skipped)
    if (err instanceof Deno.errors.NotCapable) {
      keys.push(...["rsa", "ecdsa", "ed25519", "dsa"].map((k) => `/etc/ssh/ssh_host_${k}_key`));
    }
  }
  return [...DEFAULT_HIDDEN_PATHS, ...keys];
}

/** Text of a file placeholder (a comment for shells, git config and ini files). */
export const PLACEHOLDER_TEXT = "# paddock sandbox placeholder: removed when the sandboxed command ends\n";
// the sticky bit marks it; owner-writable so that Paddock itself (the task ledger) may still use `.paddock`
const PLACEHOLDER_DIR_MODE = 0o1755;
const PLACEHOLDER_FILE_MODE = 0o444;
const ACQUIRE_ATTEMPTS = 5;
const RELEASE_RETRIES = 8;
const RELEASE_RETRY_MS = 30;

/** What stands in for a missing path: an empty folder, or a file with this text. */
type Placeholder = { dir: true } | { text: string };
const DIR: Placeholder = { dir: true };

/** Options of {@link planMounts}. */
export interface MountPlanOptions {
  /** The home folder the command sees (for hidden paths and shell start-up files). */
  home?: string;
  /** Paths to hide, relative to `home` or absolute. Default {@link DEFAULT_HIDDEN_PATHS}. */
  hidden?: readonly string[];
}

/** Mounts in order, and the placeholders they rely on. */
export interface MountPlan {
  /** Binds, protections and hidden paths, in the order bubblewrap must apply them. */
  mounts: MountOp[];
  /** Paths of the placeholders this plan made or adopted. */
  placeholders: string[];
  /**
   * Releases the placeholders (removing those no other run holds), trying again
   * briefly for those the sandbox's last processes still held. Call once the command exited.
   */
  release(): Promise<void>;
}

/**
 * Plans the writable binds of `writable`, the protections under each, and the
 * hidden paths. Makes (or adopts) placeholders for missing protected paths:
 * call `release()` after the command ended, also when it could not start.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { planMounts } from "./protect.ts";
 * const ws = Deno.makeTempDirSync();
 * const plan = planMounts([ws], { hidden: [] });
 * assert.deepEqual(plan.mounts[0], { kind: "bind", path: ws });
 * assert.ok(plan.mounts.some((m) => m.kind === "ro-bind" && m.path === `${ws}/.mcp.json`));
 * assert.ok(Deno.statSync(`${ws}/.mcp.json`).isDirectory, "a placeholder while the run holds it");
 * await plan.release();
 * assert.deepEqual([...Deno.readDirSync(ws)], [], "nothing left behind");
 * Deno.removeSync(ws);
 * ```
 */
export function planMounts(writable: readonly string[], options: MountPlanOptions = {}): MountPlan {
  const planner = new Planner(writable);
  try {
    planner.plan(options);
  } catch (err) {
    void planner.release();
    throw err;
  }
  return {
    mounts: planner.mounts,
    placeholders: planner.holds.map((h) => h.path),
    release: () => planner.release(),
  };
}

interface Hold {
  path: string;
  placeholder: Placeholder;
  file: Deno.FsFile;
}

class Planner {
  readonly mounts: MountOp[] = [];
  readonly holds: Hold[] = [];
  readonly #roots: string[];
  /** What each mounted path is inside: writable, read-only, or hidden. */
  readonly #modes = new Map<string, "rw" | "ro" | "hidden">();
  readonly #writable = new Set<string>();
  readonly #gitDirs = new Set<string>();

  constructor(writable: readonly string[]) {
    // real paths: a root given through a link is bound, and protected, where it really is
    const unique = [...new Set(writable.map(realOrResolved))];
    // shallow first: a nested root's bind must come after what its parent's protections mount
    this.#roots = unique.sort((a, b) => depth(a) - depth(b));
  }

  plan(options: MountPlanOptions): void {
    for (const root of this.#roots) {
      this.#mount("bind", root, true);
      // a missing root: bubblewrap fails on its bind, the command does not run
      if (lstat(root)?.isDirectory) this.#protectRoot(root);
    }
    const home = options.home ? resolve(options.home) : undefined;
    const homeRoot = home && this.#rootOf(home);
    if (home && homeRoot) {
      for (const name of [...SHELL_STARTUP_FILES, ...HOME_CONFIG_FILES]) {
        const path = join(home, name);
        if (name.includes("/") && !lstat(dirname(path))) continue; // never block a whole ~/.config
        this.#protect(homeRoot, path, name.includes("/") ? DIR : { text: PLACEHOLDER_TEXT });
      }
    }
    for (const entry of options.hidden ?? DEFAULT_HIDDEN_PATHS) {
      if (!isAbsolute(entry) && !home) continue;
      this.#hide(isAbsolute(entry) ? entry : join(home!, entry));
    }
  }

  release(): Promise<void> {
    const left = this.holds.splice(0).filter((hold) => !releaseHold(hold));
    return left.length > 0 ? retryRelease(left) : Promise.resolve();
  }

  #protectRoot(root: string): void {
    // plain names first: a git pointer into one of them must find it read-only already
    for (const name of PROTECTED_PATHS) {
      if (!name.startsWith(".git/") && name !== ".paddock") this.#protect(root, join(root, name), DIR);
    }
    this.#git(root);
    this.#paddock(root);
    for (const name of SHELL_STARTUP_FILES) {
      const path = join(root, name);
      const st = lstat(path);
      // outside the home folder no shell reads them: keep what exists, create nothing
      if (st && !st.isSymlink) this.#readOnly(path, st, { text: PLACEHOLDER_TEXT });
    }
  }

  /** `.paddock` read-only, except its `worktrees` (EnterWorktree's checkouts), each protected as a root. */
  #paddock(root: string): void {
    const dir = join(root, ".paddock");
    const st = lstat(dir);
    if (!st || !st.isDirectory || isPlaceholderDir(dir, st)) return this.#protect(root, dir, DIR);
    this.#mount("ro-bind", dir);
    const worktrees = join(dir, "worktrees");
    if (!lstat(worktrees)?.isDirectory) return;
    this.#mount("bind", worktrees, true);
    for (const entry of Deno.readDirSync(worktrees)) {
      if (!entry.isDirectory) continue;
      const tree = join(worktrees, entry.name);
      this.#mount("bind", tree, true); // also pins it: it cannot be swapped for another folder
      this.#protectRoot(tree);
    }
  }

  /** `.git`: a folder, a `gitdir:` file (linked worktree, submodule), or missing. */
  #git(root: string): void {
    const dot = join(root, ".git");
    const st = lstat(dot);
    if (!st || st.isSymlink || isPlaceholderDir(dot, st)) return this.#protect(root, dot, DIR);
    if (st.isDirectory) {
      this.#mount("bind", dot);
      return this.#gitDir(dot);
    }
    this.#mount("ro-bind", dot);
    const target = st.isFile ? /^gitdir:\s*(.+?)\s*$/m.exec(readText(dot) ?? "")?.[1] : undefined;
    const gitDir = target && this.#follow(root, target);
    if (gitDir) this.#gitDir(gitDir);
  }

  /** The parts of a git folder that run programs or redirect git elsewhere. */
  #gitDir(gitDir: string): void {
    const root = this.#rootOf(gitDir);
    if (!root || this.#gitDirs.has(gitDir)) return; // outside the writable roots it is read-only anyway
    this.#gitDirs.add(gitDir);
    if (!this.#pinTo(root, gitDir)) return;
    const commondir = join(gitDir, "commondir");
    const st = lstat(commondir);
    const selfPointer = { text: `${gitDir}\n` };
    if (st?.isFile && !isPlaceholderFile(commondir, st, selfPointer)) {
      // a linked worktree's folder: hooks and config live in the common folder
      this.#readOnly(commondir, st, selfPointer);
      const common = this.#follow(gitDir, readText(commondir)?.trim() ?? "");
      if (!common) return;
      this.#worktreeConfig(gitDir, common);
      return this.#gitDir(common);
    }
    this.#protect(root, join(gitDir, "hooks"), DIR);
    this.#protect(root, join(gitDir, "config"), { text: PLACEHOLDER_TEXT });
    // a commondir naming its own folder leaves git as it was; any other would redirect config and hooks
    this.#protect(root, commondir, selfPointer);
    this.#worktreeConfig(gitDir, gitDir);
    const modules = join(gitDir, "modules"); // submodules' git folders
    const mst = lstat(modules);
    if (mst && !mst.isSymlink) this.#mount("ro-bind", modules);
    const worktrees = join(gitDir, "worktrees");
    if (!lstat(worktrees)?.isDirectory) return;
    this.#mount("bind", worktrees);
    for (const entry of Deno.readDirSync(worktrees)) {
      if (entry.isDirectory) this.#gitDir(join(worktrees, entry.name));
    }
  }

  /** `config.worktree` is read when the common config enables `extensions.worktreeConfig`. */
  #worktreeConfig(gitDir: string, common: string): void {
    const path = join(gitDir, "config.worktree");
    const st = lstat(path);
    const enabled = /^\s*worktreeconfig\s*=\s*(true|yes|on|1)\s*$/im.test(
      readText(join(common, "config")) ?? "",
    );
    if (st || enabled) this.#protect(this.#rootOf(gitDir)!, path, { text: PLACEHOLDER_TEXT });
  }

  /** Hides `path` (an empty tmpfs or an empty file); where it is missing in a writable root, it cannot be created. */
  #hide(path: string): void {
    if (this.#cover(path) === "hidden") return;
    const found = this.#rootOf(path);
    const root = found && this.#cover(dirname(path)) === "rw" ? found : undefined;
    // in a writable place: pin the folders on the way; a missing parent leaves nothing to hide or block
    if (root && !this.#pinTo(root, dirname(path))) return;
    let st: Deno.FileInfo | undefined;
    try {
      st = Deno.statSync(path);
    } catch (err) {
      if (!(err instanceof Deno.errors.NotFound || err instanceof Deno.errors.NotADirectory)) {
        throw new UnavailableError(
          `Cannot start the sandbox: cannot look at "${path}" to hide it: ${
            (err as Error).message
          }: grant Deno read access to it, or turn the sandbox off`,
          { cause: err },
        );
      }
      if (root) this.#protect(root, path, DIR);
      return;
    }
    if (root && lstat(path)?.isSymlink) throw symlinkError(path);
    if (st.isDirectory) this.#mount("tmpfs", path);
    else this.#mount("hide-file", path);
  }

  /**
   * Makes `path` (under `root`) read-only, or uncreatable when it is missing:
   * pins each folder on the way, then binds the path, or a placeholder at
   * its first missing component, read-only.
   */
  #protect(root: string, path: string, placeholder: Placeholder): void {
    const parts = path.slice(root.length + 1).split("/");
    let current = root;
    for (const [i, part] of parts.entries()) {
      current = join(current, part);
      if (this.#cover(current) !== "rw") return; // read-only or hidden already
      const last = i === parts.length - 1;
      const st = lstat(current);
      if (!st) return this.#placeholder(current, last ? placeholder : DIR);
      if (st.isSymlink) throw symlinkError(current);
      if (last || !st.isDirectory || isPlaceholderDir(current, st)) {
        return this.#readOnly(current, st, last ? placeholder : DIR);
      }
      this.#mount("bind", current);
    }
  }

  /** Binds an existing path read-only; a placeholder found there is held like one this run made. */
  #readOnly(path: string, st: Deno.FileInfo, placeholder: Placeholder): void {
    if (this.#modes.has(path) && this.#modes.get(path) !== "rw") return;
    const isPlaceholder = "dir" in placeholder || st.isDirectory
      ? isPlaceholderDir(path, st)
      : isPlaceholderFile(path, st, placeholder);
    if (isPlaceholder) return this.#placeholder(path, st.isDirectory ? DIR : placeholder);
    this.#mount("ro-bind", path);
  }

  #placeholder(path: string, placeholder: Placeholder): void {
    if (this.#modes.has(path) && this.#modes.get(path) !== "rw") return;
    let hold: Hold | undefined;
    try {
      hold = acquire(path, placeholder);
    } catch (err) {
      // where Paddock itself may not create it, neither may the command (same uid, no capabilities)
      if (err instanceof Deno.errors.PermissionDenied || /EROFS|read-only file system/i.test(String(err))) {
        return;
      }
      throw err;
    }
    if (hold) {
      this.holds.push(hold);
      heldHere.set(hold.path, (heldHere.get(hold.path) ?? 0) + 1);
    } else {
      // something real appeared there meanwhile: protect it as it is
      const st = lstat(path);
      if (!st) {
        throw new UnavailableError(`Cannot start the sandbox: cannot protect "${path}": it keeps changing`);
      }
      if (st.isSymlink) throw symlinkError(path);
    }
    this.#mount("ro-bind", path);
  }

  /** Pins every folder from `root` down to `dir` (inclusive); false when one is missing. */
  #pinTo(root: string, dir: string): boolean {
    if (dir === root) return true;
    let current = root;
    for (const part of dir.slice(root.length + 1).split("/")) {
      current = join(current, part);
      if (this.#cover(current) !== "rw") return false; // read-only or hidden: nothing to pin
      const st = lstat(current);
      if (!st) return false;
      if (st.isSymlink) throw symlinkError(current);
      if (!st.isDirectory) return false;
      this.#mount("bind", current);
    }
    return true;
  }

  /**
   * The real path a git pointer file names (relative to `base`), or undefined
   * when it is missing. It must not pass through a link inside a writable root:
   * the command could re-point the link, and git would follow it.
   */
  #follow(base: string, pointer: string): string | undefined {
    if (pointer === "") return undefined;
    let current = isAbsolute(pointer) ? "" : base;
    for (const part of pointer.split("/").filter(Boolean)) {
      current = `${current}/${part}`; // as the kernel walks it: `..` after a link leaves the link's target
      if (part === "." || part === "..") continue;
      const root = this.#rootOf(resolve(current));
      if (root && resolve(current) !== root && lstat(current)?.isSymlink) throw symlinkError(current);
    }
    try {
      return Deno.realPathSync(current);
    } catch {
      return undefined;
    }
  }

  /**
   * Adds a mount unless `path` has one: a root or another deliberately
   * writable folder (`writable`) always gets its bind, and a read-only or
   * hiding mount supersedes a mere pin (it covers what was mounted below).
   */
  #mount(kind: MountOp["kind"], path: string, writable = false): void {
    const mode = kind === "bind" ? "rw" : kind === "ro-bind" ? "ro" : "hidden";
    const now = this.#modes.get(path);
    const supersedes = now === "rw" && mode !== "rw" && !this.#writable.has(path);
    if (now !== undefined && !writable && !supersedes) return;
    if (writable) this.#writable.add(path);
    this.#modes.set(path, mode);
    this.mounts.push({ kind, path });
  }

  /**
   * What `path` is inside the sandbox so far: the mode of its nearest mounted
   * ancestor (or itself). Under a read-only or hidden mount nothing more from
   * the host may be bound: a writable pin there would re-expose what it covers.
   */
  #cover(path: string): "rw" | "ro" | "hidden" {
    for (let p = path;; p = dirname(p)) {
      const mode = this.#modes.get(p);
      if (mode) return mode;
      if (p === "/") return "ro";
    }
  }

  /** The deepest writable root that contains `path`. */
  #rootOf(path: string): string | undefined {
    let best: string | undefined;
    for (const root of this.#roots) {
      if ((path === root || path.startsWith(`${root}/`)) && (!best || root.length > best.length)) best = root;
    }
    return best;
  }
}

function symlinkError(path: string): UnavailableError {
  return new UnavailableError(
    `Cannot start the sandbox: "${path}" is a symbolic link, so the sandbox cannot keep it read-only (the link itself could be replaced): replace the link with what it points to, or turn the sandbox off`,
  );
}

function realOrResolved(path: string): string {
  try {
    return Deno.realPathSync(path);
  } catch {
    return resolve(path);
  }
}

function depth(path: string): number {
  return path.split("/").length;
}

function lstat(path: string): Deno.FileInfo | undefined {
  try {
    return Deno.lstatSync(path);
  } catch (err) {
    if (err instanceof Deno.errors.NotFound || err instanceof Deno.errors.NotADirectory) return undefined;
    throw err;
  }
}

function readText(path: string): string | undefined {
  try {
    return Deno.readTextFileSync(path);
  } catch {
    return undefined;
  }
}

function isPlaceholderDir(path: string, st: Deno.FileInfo): boolean {
  if (!st.isDirectory || ((st.mode ?? 0) & 0o7777) !== PLACEHOLDER_DIR_MODE) return false;
  try {
    for (const _ of Deno.readDirSync(path)) return false;
    return true;
  } catch {
    return false;
  }
}

function isPlaceholderFile(path: string, st: Deno.FileInfo, placeholder: Placeholder): boolean {
  if ("dir" in placeholder || !st.isFile || ((st.mode ?? 0) & 0o777) !== PLACEHOLDER_FILE_MODE) return false;
  return st.size === new TextEncoder().encode(placeholder.text).length && readText(path) === placeholder.text;
}

function isPlaceholder(path: string, st: Deno.FileInfo, placeholder: Placeholder): boolean {
  return "dir" in placeholder ? isPlaceholderDir(path, st) : isPlaceholderFile(path, st, placeholder);
}

function create(path: string, placeholder: Placeholder): void {
  try {
    if ("dir" in placeholder) {
      Deno.mkdirSync(path);
      Deno.chmodSync(path, PLACEHOLDER_DIR_MODE);
    } else {
      const file = Deno.openSync(path, { write: true, createNew: true, mode: PLACEHOLDER_FILE_MODE });
      try {
        const bytes = new TextEncoder().encode(placeholder.text);
        for (let done = 0; done < bytes.length;) done += file.writeSync(bytes.subarray(done));
      } finally {
        file.close();
      }
      Deno.chmodSync(path, PLACEHOLDER_FILE_MODE);
    }
  } catch (err) {
    if (!(err instanceof Deno.errors.AlreadyExists)) throw err;
  }
}

/**
 * Makes (or finds) the placeholder at `path` and takes a shared lock on it;
 * undefined when a real entry is there instead.
 */
function acquire(path: string, placeholder: Placeholder): Hold | undefined {
  for (let attempt = 0; attempt < ACQUIRE_ATTEMPTS; attempt++) {
    create(path, placeholder);
    let file: Deno.FsFile;
    try {
      file = Deno.openSync(path, { read: true });
    } catch (err) {
      if (err instanceof Deno.errors.NotFound) continue; // removed by a run that just released it
      throw err;
    }
    try {
      file.lockSync(false);
      const st = file.statSync();
      // the last holder of an older placeholder may have removed it between our open and our lock
      if (lstat(path)?.ino !== st.ino) {
        file.close();
        continue;
      }
      if (!isPlaceholder(path, st, placeholder)) {
        file.close();
        return undefined;
      }
      return { path, placeholder, file };
    } catch (err) {
      file.close();
      throw err;
    }
  }
  throw new UnavailableError(`Cannot start the sandbox: cannot protect "${path}": it keeps changing`);
}

/** Placeholders held by runs of this process, by path, with how many hold each. */
const heldHere = new Map<string, number>();

/**
 * Drops this run's lock; if no other run holds the placeholder, removes it.
 * False when it is left and no other run of this process holds it: then only a
 * lingering process of this run, or a run of another process, can, and a retry may help.
 */
function releaseHold(hold: Hold): boolean {
  hold.file.close();
  const others = (heldHere.get(hold.path) ?? 1) - 1;
  if (others > 0) heldHere.set(hold.path, others);
  else heldHere.delete(hold.path);
  return removeUnheld(hold) || others > 0;
}

/**
 * Removes the placeholder when no run holds it. False when it could not tell
 * (locked, or the removal failed): the caller may try again shortly, since the
 * sandbox's last processes can keep it for a moment after the command ended.
 */
function removeUnheld(hold: Hold): boolean {
  let file: Deno.FsFile;
  try {
    file = Deno.openSync(hold.path, { read: true });
  } catch {
    return true; // already gone
  }
  try {
    if (!file.tryLockSync(true)) return false; // another run holds it: the last one removes it
    const st = file.statSync();
    if (lstat(hold.path)?.ino !== st.ino) return true;
    if (isPlaceholder(hold.path, st, hold.placeholder)) {
      Deno.removeSync(hold.path);
      return true;
    }
    // filled from outside meanwhile (the task ledger in .paddock, the user): a real folder now
    if (st.isDirectory && ((st.mode ?? 0) & 0o7777) === PLACEHOLDER_DIR_MODE) {
      Deno.chmodSync(hold.path, 0o755);
    }
    return true;
  } catch {
    return false; // left for a retry, or for the next run to adopt and remove
  } finally {
    file.close();
  }
}

/** Tries again, a few times over about a quarter of a second, to remove placeholders left by {@link MountPlan.release}. */
async function retryRelease(left: readonly Hold[]): Promise<void> {
  let pending = [...left];
  for (let i = 0; i < RELEASE_RETRIES && pending.length > 0; i++) {
    await new Promise((r) => setTimeout(r, RELEASE_RETRY_MS));
    pending = pending.filter((hold) => !removeUnheld(hold));
  }
}

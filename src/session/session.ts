/**
 * Per-session state shared by the calls of one agent session: working
 * directory, workspace roots, permission mode, output folder, and typed slots
 * that tools own (read records, tasks, todos).
 *
 * @module
 */
import { join, resolve } from "node:path";
import type { PermissionMode } from "../permissions/modes.ts";
import { makeSessionOutputDir } from "./output_root.ts";
import { isInside } from "./workspace.ts";

export { defaultOutputRoot } from "./output_root.ts";

/**
 * An event a session broadcasts to observers (todo changes, mode changes…).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { Session, type SessionEvent } from "../../mod.ts";
 * await using session = new Session({ roots: ["/work/project"] });
 * const seen: SessionEvent[] = [];
 * session.on((e) => seen.push(e));
 * session.setMode("plan");
 * assert.equal(seen[0].type, "mode");
 * ```
 */
export interface SessionEvent {
  /** Event type such as `todos` or `mode`. */
  type: string;
  /** Event payload. */
  // deno-lint-ignore no-explicit-any
  [key: string]: any;
}

/**
 * Options for {@link Session}.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { Session, type SessionOptions } from "../../mod.ts";
 * const options: SessionOptions = {
 *   roots: ["/work/project"],
 *   cwd: "/work/project/src",
 *   mode: "acceptEdits",
 * };
 * await using session = new Session(options);
 * assert.equal(session.cwd, "/work/project/src");
 * assert.equal(session.mode, "acceptEdits");
 * ```
 */
export interface SessionOptions {
  /** Workspace roots; the first one is the initial cwd. Default: the process cwd. */
  roots?: readonly string[];
  /** Initial working directory (inside a root). Default: the first root. */
  cwd?: string;
  /**
   * Where truncated outputs and task logs go, used as it is and kept after the session.
   * @default {a private folder `<per-user folder>/<session id>` (see `output_root.ts`), removed on close}
   */
  outputDir?: string;
  /** Permission mode. Default: `default`. */
  mode?: PermissionMode;
  /** Session id. Default: a random UUID. */
  id?: string;
}

/**
 * State of one agent session.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { Session } from "./session.ts";
 * const s = new Session({ roots: [Deno.cwd()] });
 * const counter = s.slot("counter", () => ({ n: 0 }));
 * counter.n++;
 * assert.equal(s.slot("counter", () => ({ n: 0 })).n, 1);
 * ```
 */
export class Session {
  /** Session id. */
  readonly id: string;
  /** Workspace roots (absolute, symlinks resolved where they exist). */
  readonly roots: readonly string[];
  #cwd: string;
  #outputDir: string | undefined;
  #ownOutput: string | undefined;
  #mode: PermissionMode;
  #slots = new Map<string, unknown>();
  #listeners = new Set<(e: SessionEvent) => void>();
  #cleanups: Array<() => void | Promise<void>> = [];

  /** Creates a session. */
  constructor(options: SessionOptions = {}) {
    this.id = options.id ?? crypto.randomUUID();
    const roots = options.roots?.length ? options.roots : [Deno.cwd()];
    this.roots = roots.map((r) => realOrResolved(r));
    this.#cwd = options.cwd ? realOrResolved(options.cwd) : this.roots[0];
    this.#outputDir = options.outputDir;
    this.#mode = options.mode ?? "default";
  }

  /** The current working directory. */
  get cwd(): string {
    return this.#cwd;
  }

  /**
   * Moves the working directory. Returns false (and keeps the old one) when
   * the new directory is outside every root.
   */
  setCwd(dir: string): boolean {
    const abs = realOrResolved(dir);
    if (!this.contains(abs)) return false;
    this.#cwd = abs;
    this.emit({ type: "cwd", cwd: abs });
    return true;
  }

  /** Adds a workspace root (EnterWorktree uses it for a worktree outside the roots). */
  addRoot(dir: string): void {
    const abs = realOrResolved(dir);
    if (!this.roots.includes(abs)) (this.roots as string[]).push(abs);
  }

  /** True when `absPath` is inside one of the roots (no symlink resolution here). */
  contains(absPath: string): boolean {
    return isInside(absPath, this.roots);
  }

  /** The permission mode. */
  get mode(): PermissionMode {
    return this.#mode;
  }

  /** Changes the permission mode and tells observers. */
  setMode(mode: PermissionMode): void {
    const previous = this.#mode;
    this.#mode = mode;
    if (previous !== mode) this.emit({ type: "mode", mode, previous });
  }

  /**
   * The folder for spilled outputs and task logs, created on first use: the
   * `outputDir` option, else a private folder (0700) of this session under
   * the per-user output folder (`output_root.ts`), removed when the session
   * closes.
   */
  outputDir(): string {
    if (this.#outputDir === undefined) {
      const made = makeSessionOutputDir(this.id);
      this.#outputDir = made.dir;
      this.#ownOutput = made.removeOnClose;
      if (made.refused) {
        this.emit({
          type: "warning",
          message: `Output files go to "${made.dir}", not the usual folder: ${made.refused}`,
        });
      }
    } else if (this.#ownOutput === undefined) {
      Deno.mkdirSync(this.#outputDir, { recursive: true });
    } else {
      try {
        Deno.mkdirSync(this.#outputDir, { mode: 0o700 }); // removed behind our back: make it again
      } catch {
        // there, as it should be
      }
    }
    return this.#outputDir;
  }

  /**
   * A path inside the output folder. The file is made there, empty and
   * private (0600), unless it exists, so whatever writes it keeps it private.
   */
  outputPath(name: string): string {
    const path = join(this.outputDir(), name);
    try {
      Deno.openSync(path, { write: true, createNew: true, mode: 0o600 }).close();
    } catch {
      // there already: its writer made it
    }
    return path;
  }

  /** Returns the state stored under `key`, creating it with `init` on first use. */
  slot<T>(key: string, init: () => T): T {
    if (!this.#slots.has(key)) this.#slots.set(key, init());
    return this.#slots.get(key) as T;
  }

  /** Subscribes to session events; returns the unsubscribe function. */
  on(listener: (e: SessionEvent) => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  /** Registers work to do on {@link close} (kill task groups, close MCP clients…), last in first out. */
  addCleanup(fn: () => void | Promise<void>): void {
    this.#cleanups.push(fn);
  }

  /** Runs every cleanup once; errors are collected and rethrown together. */
  async close(): Promise<void> {
    const errors: unknown[] = [];
    while (this.#cleanups.length) {
      const fn = this.#cleanups.pop()!;
      try {
        await fn();
      } catch (err) {
        errors.push(err);
      }
    }
    if (this.#ownOutput !== undefined) {
      // the session's own output folder goes with it (a folder the user gave stays)
      try {
        Deno.removeSync(this.#ownOutput, { recursive: true });
      } catch {
        // already gone
      }
      this.#outputDir = this.#ownOutput = undefined;
    }
    if (errors.length) throw new AggregateError(errors, "Session cleanup failed");
  }

  /** Closes the session (`await using session = new Session()`). */
  [Symbol.asyncDispose](): Promise<void> {
    return this.close();
  }

  /** Broadcasts an event to observers. Listener errors are ignored. */
  emit(event: SessionEvent): void {
    for (const l of this.#listeners) {
      try {
        l(event);
      } catch {
        // an observer's failure must not break the call
      }
    }
  }
}

function realOrResolved(p: string): string {
  const abs = resolve(p);
  try {
    return Deno.realPathSync(abs);
  } catch {
    return abs;
  }
}

/**
 * Per-session state shared by the calls of one agent session: working
 * directory, workspace roots, permission mode, output folder, and typed slots
 * that tools own (read records, tasks, todos).
 *
 * @module
 */
import { join, resolve } from "node:path";
import type { PermissionMode } from "../permissions/modes.ts";
import { isInside } from "./workspace.ts";

/** An event a session broadcasts to observers (todo changes, mode changes…). */
export interface SessionEvent {
  /** Event type such as `todos` or `mode`. */
  type: string;
  /** Event payload. */
  // deno-lint-ignore no-explicit-any
  [key: string]: any;
}

/** Options for {@link Session}. */
export interface SessionOptions {
  /** Workspace roots; the first one is the initial cwd. Default: the process cwd. */
  roots?: readonly string[];
  /** Initial working directory (inside a root). Default: the first root. */
  cwd?: string;
  /** Where truncated outputs and task logs go. Default: a new temp folder. */
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
 * import { Session } from "./session.ts";
 * const s = new Session({ roots: [Deno.cwd()] });
 * const counter = s.slot("counter", () => ({ n: 0 }));
 * counter.n++;
 * console.assert(s.slot("counter", () => ({ n: 0 })).n === 1);
 * ```
 */
export class Session {
  /** Session id. */
  readonly id: string;
  /** Workspace roots (absolute, symlinks resolved where they exist). */
  readonly roots: readonly string[];
  #cwd: string;
  #outputDir: string | undefined;
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
   * The folder for spilled outputs and task logs, created on first use:
   * the `outputDir` option, else `<defaultOutputRoot()>/<session id>`.
   */
  outputDir(): string {
    this.#outputDir ??= join(defaultOutputRoot(), this.id);
    Deno.mkdirSync(this.#outputDir, { recursive: true });
    return this.#outputDir;
  }

  /** A path inside the output folder. */
  outputPath(name: string): string {
    return join(this.outputDir(), name);
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

/**
 * The folder under which sessions keep their outputs by default:
 * `$TMPDIR/paddock` (or `/tmp/paddock`). The Deno flags grant this folder.
 */
export function defaultOutputRoot(): string {
  let tmp: string | undefined;
  try {
    tmp = Deno.env.get("TMPDIR");
  } catch {
    // without env permission, fall back to /tmp
  }
  return join(tmp || "/tmp", "paddock");
}

function realOrResolved(p: string): string {
  const abs = resolve(p);
  try {
    return Deno.realPathSync(abs);
  } catch {
    return abs;
  }
}

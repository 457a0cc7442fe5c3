/** Test helper: runs a script through the real sandbox (`sandboxCommand` → `Deno.Command`). */
import { sandboxEnv } from "../../src/sandbox/env.ts";
import { sandboxCommand, type SandboxSettings } from "../../src/sandbox/sandbox.ts";

/** Whether bubblewrap is installed (the Linux sandbox tests need it). */
export const HAS_BWRAP = Deno.build.os === "linux" &&
  new Deno.Command("bash", { args: ["-c", "command -v bwrap"], stdout: "null", stderr: "null" }).outputSync()
    .success;

/** Whether the tests run as root, the case THREATS.md P2 is about (CI runs as root). */
export const IS_ROOT = Deno.build.os === "linux" && Deno.uid() === 0;

/** What a sandboxed script did. */
export interface Sandboxed {
  /** Exit code. */
  code: number;
  /** stdout then stderr. */
  out: string;
  /** Wall time (ms). */
  ms: number;
  /** The limit mechanism that applied. */
  limits: string;
}

/** Options of {@link sandboxed}. */
export interface SandboxedOptions {
  /** Writable folders. */
  writable: string[];
  /** Working directory. Default the first writable folder, else `/`. */
  cwd?: string;
  /** The home folder the command sees. Default this process's. */
  home?: string;
  /** Sandbox settings. */
  settings?: SandboxSettings;
  /** The parent environment (filtered by `sandboxEnv`). Default this process's. */
  env?: Record<string, string>;
  /** Kill after this long (ms). Default 20 s. */
  timeoutMs?: number;
  /** The shell. Default `bash`. */
  shell?: string;
}

/** Runs `script` with `bash -c` inside the sandbox and releases the sandbox afterwards. */
export async function sandboxed(script: string, o: SandboxedOptions): Promise<Sandboxed> {
  const cwd = o.cwd ?? o.writable[0] ?? "/";
  const line = sandboxCommand(
    [o.shell ?? "bash", "-c", script],
    { writable: o.writable, cwd, home: o.home },
    o.settings,
  );
  const timeout = new AbortController();
  const timer = setTimeout(() => timeout.abort(), o.timeoutMs ?? 20_000);
  const started = Date.now();
  try {
    const parent = o.env ?? Deno.env.toObject();
    const out = await new Deno.Command(line.program, {
      args: line.args,
      cwd,
      env: sandboxEnv(o.home ? { ...parent, HOME: o.home } : parent),
      clearEnv: true,
      stdin: "null",
      stdout: "piped",
      stderr: "piped",
      signal: timeout.signal,
    }).output();
    const dec = new TextDecoder();
    return {
      code: out.code,
      out: dec.decode(out.stdout) + dec.decode(out.stderr),
      ms: Date.now() - started,
      limits: line.limits,
    };
  } finally {
    clearTimeout(timer);
    await line.release();
  }
}

/** A temp folder (real path) removed on dispose. */
export async function tempDir(
  prefix = "paddock-sec-",
  dir?: string,
): Promise<{ path: string } & AsyncDisposable> {
  const path = await Deno.realPath(await Deno.makeTempDir({ prefix, dir }));
  return {
    path,
    async [Symbol.asyncDispose]() {
      await Deno.remove(path, { recursive: true }).catch(() => {});
    },
  };
}

/** The sorted names in a folder, to compare a host folder before and after a run. */
export function listing(dir: string): string[] {
  return [...Deno.readDirSync(dir)].map((e) => e.name).sort();
}

/** Whether a path exists (without following a final link). */
export function exists(path: string): boolean {
  try {
    Deno.lstatSync(path);
    return true;
  } catch {
    return false;
  }
}

/** Runs git on the host (outside the sandbox) in `cwd`. */
export function git(cwd: string, ...args: string[]): string {
  const out = new Deno.Command("git", {
    args: ["-c", "user.name=t", "-c", "user.email=t@example.com", ...args],
    cwd,
    stdout: "piped",
    stderr: "piped",
  }).outputSync();
  if (!out.success) throw new Error(`git ${args.join(" ")}: ${new TextDecoder().decode(out.stderr)}`);
  return new TextDecoder().decode(out.stdout);
}

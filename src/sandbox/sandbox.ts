/**
 * The OS sandbox for Bash: settings, the wrapped command line per platform
 * (bubblewrap on Linux, sandbox-exec on macOS), and the start-up self-test
 * that runs `true` inside the sandbox. When the sandbox is asked for but
 * cannot start, the caller gets an {@link UnavailableError} that says why and
 * how to fix it: it fails closed, never runs unsandboxed.
 *
 * @module
 */
import { UnavailableError } from "../errors.ts";
import { bubblewrapArgs } from "./bubblewrap.ts";
import { seatbeltArgs } from "./seatbelt.ts";

/** Settings of the Bash sandbox. */
export interface SandboxSettings {
  /** Keep network access inside the sandbox. Default false. */
  allowNetwork?: boolean;
  /** Extra folders the command may write, besides the workspace roots. Default none. */
  writablePaths?: readonly string[];
  /** The sandbox program. Default `bwrap` on Linux, `sandbox-exec` on macOS. */
  program?: string;
}

/** What one sandboxed run needs. */
export interface SandboxRun {
  /** Folders the command may write (the roots plus `writablePaths`). */
  writable: readonly string[];
  /** Single files the command may write. */
  writableFiles?: readonly string[];
  /** Working directory. */
  cwd: string;
}

/** A command line: program and arguments. */
export interface CommandLine {
  /** The program. */
  program: string;
  /** Its arguments. */
  args: string[];
  /** Whether the command runs in its own PID namespace (everything in it dies with it). */
  pidNamespace: boolean;
}

/** The default sandbox program on this platform, or undefined where there is none. */
export function sandboxProgram(settings: SandboxSettings = {}): string | undefined {
  if (settings.program) return settings.program;
  if (Deno.build.os === "linux") return "bwrap";
  if (Deno.build.os === "darwin") return "sandbox-exec";
  return undefined;
}

/**
 * Wraps `argv` so it runs inside the sandbox.
 *
 * @example
 * ```ts
 * import { sandboxCommand } from "./sandbox.ts";
 * if (Deno.build.os === "linux") {
 *   const line = sandboxCommand(["bash", "-c", "true"], { writable: ["/w"], cwd: "/w" });
 *   console.assert(line.program === "bwrap" && line.args.at(-1) === "true");
 * }
 * ```
 */
export function sandboxCommand(
  argv: readonly string[],
  run: SandboxRun,
  settings: SandboxSettings = {},
): CommandLine {
  const program = sandboxProgram(settings);
  const writable = [...run.writable, ...(settings.writablePaths ?? [])];
  if (program === undefined) {
    throw new UnavailableError(
      `The Bash sandbox is not available on "${Deno.build.os}": it needs bubblewrap (Linux) or sandbox-exec (macOS): turn the sandbox off to run Bash unsandboxed`,
    );
  }
  const spec = { writable, writableFiles: run.writableFiles, allowNetwork: settings.allowNetwork };
  const seatbelt = Deno.build.os === "darwin" && !settings.program?.includes("bwrap");
  const pre = seatbelt ? seatbeltArgs(spec) : bubblewrapArgs({ ...spec, cwd: run.cwd });
  return { program, args: [...pre, ...argv], pidNamespace: !seatbelt };
}

const selfTests = new Map<string, Promise<void>>();

/**
 * Runs `true` inside the sandbox once per settings (cached) and throws an
 * {@link UnavailableError} saying why and how to fix it when it fails.
 *
 * @example
 * ```ts
 * import { sandboxSelfTest } from "./sandbox.ts";
 * let message = "";
 * await sandboxSelfTest({ program: "/nonexistent/bwrap" }).catch((e) => (message = e.message));
 * console.assert(message.includes("was not found"));
 * ```
 */
export function sandboxSelfTest(settings: SandboxSettings = {}): Promise<void> {
  const key = JSON.stringify([settings.program, settings.allowNetwork, Deno.build.os]);
  let test = selfTests.get(key);
  if (!test) {
    test = runSelfTest(settings);
    selfTests.set(key, test);
    // a failure is not cached: the user may install the program and retry
    test.catch(() => selfTests.delete(key));
  }
  return test;
}

async function runSelfTest(settings: SandboxSettings): Promise<void> {
  const line = sandboxCommand(["true"], { writable: [], cwd: "/" }, { ...settings, writablePaths: [] });
  const off = "or turn the sandbox off (no --sandbox, or `bash: { sandbox: false }`) to run Bash unsandboxed";
  let out: Deno.CommandOutput;
  try {
    out = await new Deno.Command(line.program, {
      args: line.args,
      stdin: "null",
      stdout: "null",
      stderr: "piped",
    }).output();
  } catch (err) {
    if (err instanceof Deno.errors.NotFound) {
      const install = Deno.build.os === "linux"
        ? "install bubblewrap (`apt-get install bubblewrap`, `dnf install bubblewrap`)"
        : `make "${line.program}" available on PATH`;
      throw new UnavailableError(
        `Cannot start the Bash sandbox: "${line.program}" was not found: ${install}, ${off}`,
        { cause: err },
      );
    }
    if (err instanceof Deno.errors.NotCapable || err instanceof Deno.errors.PermissionDenied) {
      throw new UnavailableError(
        `Cannot start the Bash sandbox: Deno may not run "${line.program}": add it to --allow-run, ${off}`,
        { cause: err },
      );
    }
    throw new UnavailableError(`Cannot start the Bash sandbox: ${(err as Error).message}: ${off}`, {
      cause: err,
    });
  }
  if (out.success) return;
  const stderr = new TextDecoder().decode(out.stderr).trim().split("\n").slice(-3).join(" ");
  const namespaces = /namespace|permission|operation not permitted|setting up uid map/i.test(stderr)
    ? ": allow unprivileged user namespaces (`sysctl -w kernel.unprivileged_userns_clone=1`, or on Ubuntu `sysctl -w kernel.apparmor_restrict_unprivileged_userns=0`), or run in a container that permits them,"
    : ":";
  throw new UnavailableError(
    `Cannot start the Bash sandbox: "${line.program}" failed its self-test (exit ${out.code}): "${stderr}"${namespaces} ${off}`,
  );
}

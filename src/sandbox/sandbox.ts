/**
 * The OS sandbox for Bash: settings, the wrapped command line per platform
 * (bubblewrap on Linux, sandbox-exec on macOS), and the start-up self-test
 * that runs `true` inside the sandbox. When the sandbox is asked for but
 * cannot start, the caller gets an {@link UnavailableError} that says why and
 * how to fix it: it fails closed, never runs unsandboxed.
 *
 * On Linux a command line holds resources until {@link CommandLine.release}:
 * the placeholders that keep missing protected paths uncreatable
 * (`protect.ts`) and the command's cgroup (`limits.ts`).
 *
 * @module
 */
import { join } from "node:path";
import { UnavailableError } from "../errors.ts";
import { bubblewrapArgs, type BubblewrapFeatures } from "./bubblewrap.ts";
import { applyLimits, DEFAULT_MAX_MEMORY_MIB, DEFAULT_MAX_PROCESSES, type LimitMechanism } from "./limits.ts";
import { defaultHiddenPaths, planMounts } from "./protect.ts";
import { seatbeltArgs } from "./seatbelt.ts";

/**
 * Settings of the Bash sandbox.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { createBashTool } from "../tools/bash/bash.ts";
 * import type { SandboxSettings } from "./sandbox.ts";
 * const sandbox: SandboxSettings = { allowNetwork: false, writablePaths: ["/tmp/cache"], maxProcesses: 64 };
 * assert.equal(createBashTool({ sandbox }).name, "Bash");
 * ```
 */
export interface SandboxSettings {
  /** Keep network access inside the sandbox. Default false. */
  allowNetwork?: boolean;
  /** Extra folders the command may write, besides the workspace roots. Default none. */
  writablePaths?: readonly string[];
  /** The sandbox program. Default `bwrap` on Linux, `sandbox-exec` on macOS. */
  program?: string;
  /**
   * Most processes (tasks) one command may run at once (Linux).
   * @default {512}
   */
  maxProcesses?: number;
  /**
   * Most memory one command may use, MiB (Linux; also the size cap of its private `/tmp`).
   * @default {2048}
   */
  maxMemoryMiB?: number;
  /**
   * How the limits are enforced: `auto` makes a cgroup where the machine lets
   * Paddock (cgroup v2 with delegated controllers, or v1 `pids` and `memory`),
   * else sets rlimits; `rlimit` always sets rlimits (see `limits.ts` for what
   * each covers).
   * @default {"auto"}
   */
  limits?: "auto" | "rlimit";
  /**
   * Paths hidden inside the sandbox (Linux), relative to the home folder or
   * absolute: folders become empty, files read as empty. Replaces the default list.
   * @default {DEFAULT_HIDDEN_PATHS} (`.ssh`, `.aws`, `.gnupg`, `.netrc`, `.config/gcloud`, `.docker`,
   * `.kube`, `.npmrc`, `.git-credentials`, `.config/paddock`, other token stores, `/etc/shadow`,
   * `/etc/gshadow`), plus `/etc/ssh/ssh_host_*_key`
   */
  hiddenPaths?: readonly string[];
  /**
   * Paths hidden in addition to `hiddenPaths`.
   * @default {[]}
   */
  extraHiddenPaths?: readonly string[];
}

/**
 * What one sandboxed run needs.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { sandboxCommand, type SandboxRun } from "./sandbox.ts";
 * const run: SandboxRun = { writable: ["/w"], cwd: "/w", home: "/home/ada" };
 * if (Deno.build.os === "linux") {
 *   const line = sandboxCommand(["bash", "-c", "make"], run, { program: "bwrap", limits: "rlimit" });
 *   assert.ok(line.args.includes("/w"));
 *   await line.release();
 * }
 * ```
 */
export interface SandboxRun {
  /** Folders the command may write (the roots plus `writablePaths`). */
  writable: readonly string[];
  /** Single files the command may write. */
  writableFiles?: readonly string[];
  /** Working directory. */
  cwd: string;
  /** The home folder the command sees: hidden paths are found under it. Default: this process's `HOME`. */
  home?: string;
}

/**
 * A command line: program and arguments, and what the sandbox holds for it.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { type CommandLine, sandboxCommand } from "./sandbox.ts";
 * if (Deno.build.os === "linux") {
 *   const line: CommandLine = sandboxCommand(["bash", "-c", "true"], { writable: ["/w"], cwd: "/w" }, {
 *     limits: "rlimit",
 *   });
 *   assert.equal(line.program, "bwrap");
 *   assert.ok(line.pidNamespace);
 *   await line.release();
 * }
 * ```
 */
export interface CommandLine {
  /** The program. */
  program: string;
  /** Its arguments. */
  args: string[];
  /** Whether the command runs in its own PID namespace (everything in it dies with it). */
  pidNamespace: boolean;
  /** How its process and memory limits are enforced (`none`: not at all, as on macOS). */
  limits: LimitMechanism | "none";
  /**
   * Releases what the sandbox holds for this command (placeholders, its
   * cgroup). Call it once the command exited, or when it could not start.
   * Never throws; a second call does nothing.
   */
  release(): Promise<void>;
}

/**
 * The default sandbox program on this platform, or undefined where there is none.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { sandboxProgram } from "./sandbox.ts";
 * assert.equal(sandboxProgram({ program: "/opt/bwrap" }), "/opt/bwrap");
 * ```
 */
export function sandboxProgram(settings: SandboxSettings = {}): string | undefined {
  if (settings.program) return settings.program;
  if (Deno.build.os === "linux") return "bwrap";
  if (Deno.build.os === "darwin") return "sandbox-exec";
  return undefined;
}

/**
 * Wraps `argv` so it runs inside the sandbox. On Linux this makes the
 * placeholders of missing protected paths and the command's cgroup: call
 * `release()` after the command ended.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { sandboxCommand } from "./sandbox.ts";
 * if (Deno.build.os === "linux") {
 *   const line = sandboxCommand(["bash", "-c", "true"], { writable: ["/w"], cwd: "/w" });
 *   assert.equal(line.program, "bwrap");
 *   assert.equal(line.args.at(-1), "true");
 *   await line.release();
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
      `The Bash sandbox is not available on "${Deno.build.os}": it needs bubblewrap (Linux) or sandbox-exec (macOS): ${SANDBOX_OFF}`,
    );
  }
  const spec = { writable, writableFiles: run.writableFiles, allowNetwork: settings.allowNetwork };
  if (Deno.build.os === "darwin" && !settings.program?.includes("bwrap")) {
    const release = () => Promise.resolve();
    return { program, args: [...seatbeltArgs(spec), ...argv], pidNamespace: false, limits: "none", release };
  }
  const hidden = [
    ...(settings.hiddenPaths ?? defaultHiddenPaths()),
    ...(settings.extraHiddenPaths ?? []),
    // the user's Paddock folder (settings, trust records) also where XDG_CONFIG_HOME moves it
    ...(settings.hiddenPaths ? [] : xdgPaddockDir()),
  ];
  let plan;
  try {
    plan = planMounts(writable, { home: run.home ?? envHome(), hidden });
  } catch (err) {
    if (err instanceof UnavailableError) throw err;
    throw new UnavailableError(
      `Cannot start the sandbox: cannot prepare the protected paths: ${(err as Error).message}`,
      { cause: err },
    );
  }
  const maxMemoryMiB = settings.maxMemoryMiB ?? DEFAULT_MAX_MEMORY_MIB;
  let limits;
  try {
    limits = applyLimits({
      maxProcesses: settings.maxProcesses ?? DEFAULT_MAX_PROCESSES,
      maxMemoryMiB,
      mechanism: settings.limits,
    });
  } catch (err) {
    void plan.release();
    throw err;
  }
  const args = bubblewrapArgs({
    ...spec,
    cwd: run.cwd,
    mounts: plan.mounts,
    runPaths: settings.allowNetwork ? resolverPaths() : [],
    binds: limits.binds,
    tmpfsBytes: maxMemoryMiB * 1024 * 1024,
    features: bubblewrapFeatures(program),
  });
  let released: Promise<void> | undefined;
  const release = () =>
    released ??= (async () => {
      await plan.release();
      await limits.release();
    })();
  return {
    program,
    args: [...args, ...limits.wrapper, ...argv],
    pidNamespace: true,
    limits: limits.mechanism,
    release,
  };
}

function xdgPaddockDir(): string[] {
  try {
    const xdg = Deno.env.get("XDG_CONFIG_HOME");
    return xdg && xdg.startsWith("/") ? [join(xdg, "paddock")] : [];
  } catch {
    return []; // not granted: the default ~/.config/paddock is hidden anyway
  }
}

function envHome(): string | undefined {
  try {
    return Deno.env.get("HOME");
  } catch {
    return undefined; // not granted: no home folder to protect or hide under
  }
}

/** Where `/etc/resolv.conf` points under `/run` (systemd-resolved, resolvconf), kept when the network is on. */
function resolverPaths(): string[] {
  try {
    const real = Deno.realPathSync("/etc/resolv.conf");
    return real.startsWith("/run/") ? [real] : [];
  } catch {
    return [];
  }
}

const featureCache = new Map<string, BubblewrapFeatures>();

/** What the installed bubblewrap supports, from its `--help` (older ones lack `--disable-userns` and `--size`). */
function bubblewrapFeatures(program: string): BubblewrapFeatures {
  let features = featureCache.get(program);
  if (!features) {
    let help = "--disable-userns --size";
    try {
      const out = new Deno.Command(program, { args: ["--help"], stdout: "piped", stderr: "piped" })
        .outputSync();
      help = new TextDecoder().decode(out.stdout) + new TextDecoder().decode(out.stderr);
    } catch {
      // missing or not allowed: the self-test says so; assume a current bubblewrap meanwhile
    }
    features = { disableUserns: help.includes("--disable-userns"), tmpfsSize: help.includes("--size") };
    featureCache.set(program, features);
  }
  return features;
}

/** How a user turns the sandbox off, for the messages of a sandbox that cannot start. */
const SANDBOX_OFF =
  'or turn the sandbox off yourself to run Bash with only Deno\'s checks: --no-sandbox, "sandbox": false in ~/.config/paddock/settings.json, or `createRuntime({ sandbox: false })`';

const selfTests = new Map<string, Promise<void>>();

/**
 * Runs `true` inside the sandbox once per settings (cached) and throws an
 * {@link UnavailableError} saying why and how to fix it when it fails.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { sandboxSelfTest } from "./sandbox.ts";
 * let message = "";
 * await sandboxSelfTest({ program: "/nonexistent/bwrap" }).catch((e) => (message = e.message));
 * assert.ok(message.includes("was not found"));
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
  try {
    await selfTestRun(line);
  } finally {
    await line.release();
  }
}

async function selfTestRun(line: CommandLine): Promise<void> {
  const off = SANDBOX_OFF;
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

/**
 * `paddock sandbox check`: escape probes run inside the sandbox on this
 * machine, one row each, passing when the attack failed. Each probe names a
 * class of attack from THREATS.md (P2 root, P3 protected paths, P6 secrets,
 * P7 network, P8 limits) and judges by what happened on the host, not by what
 * the command printed about itself.
 *
 * @module
 */
import { join } from "node:path";
import { sandboxEnv } from "./env.ts";
import { DEFAULT_MAX_MEMORY_MIB, DEFAULT_MAX_PROCESSES } from "./limits.ts";
import { sandboxCommand, type SandboxSettings } from "./sandbox.ts";
import { pathExists as exists } from "../session/workspace.ts";

/** Default time one probe may take (ms); the memory hog is the slow one. */
export const DEFAULT_PROBE_TIMEOUT_MS = 30_000;

/** One probe's outcome. */
export interface CheckRow {
  /** The class of attack probed. */
  probe: string;
  /** Whether the sandbox held (the attack failed, or did not apply). */
  ok: boolean;
  /** What happened. */
  detail: string;
}

/** Options of {@link sandboxCheck}. */
export interface CheckOptions {
  /** The sandbox settings to check. Default `{}` (the defaults). */
  settings?: SandboxSettings;
  /** The home folder whose credential stores must be hidden. Default: this process's `HOME`. */
  home?: string;
  /** Time one probe may take (ms). Default {@link DEFAULT_PROBE_TIMEOUT_MS}. */
  timeoutMs?: number;
  /** Stops the check. */
  signal?: AbortSignal;
}

interface Ran {
  out: string;
  code: number;
  ms: number;
  limits: string;
}

/**
 * Runs the escape probes inside the sandbox and returns one row per probe.
 * Throws what {@link sandboxCommand} throws when the sandbox cannot start.
 *
 * @example
 * ```ts ignore
 * import { formatCheckTable, sandboxCheck } from "./check.ts";
 * console.log(formatCheckTable(await sandboxCheck()));
 * ```
 */
export async function sandboxCheck(options: CheckOptions = {}): Promise<CheckRow[]> {
  const settings = options.settings ?? {};
  const timeoutMs = options.timeoutMs ?? DEFAULT_PROBE_TIMEOUT_MS;
  const mark = `paddock-check-${crypto.randomUUID().slice(0, 8)}`;
  // what a leak would show; never part of a path, so an error message naming a path is no leak
  const secret = `secret-${crypto.randomUUID()}`;
  const parentEnv: Record<string, string> = { ...readEnv(), OPENAI_API_KEY: `sk-${secret}` };
  const home = options.home ?? parentEnv.HOME;
  const ws = await Deno.realPath(await Deno.makeTempDir({ prefix: `${mark}-ws-` }));
  const git = await Deno.realPath(await Deno.makeTempDir({ prefix: `${mark}-git-` }));
  const hostTmp = `/tmp/${mark}`;
  const rows: CheckRow[] = [];
  const run = async (script: string, cwd = ws, runHome = home): Promise<Ran> => {
    const line = sandboxCommand(["bash", "-c", script], { writable: [cwd], cwd, home: runHome }, settings);
    const started = Date.now();
    const timeout = new AbortController();
    const timer = setTimeout(() => timeout.abort(), timeoutMs);
    try {
      const signals = [timeout.signal, ...(options.signal ? [options.signal] : [])];
      const out = await new Deno.Command(line.program, {
        args: line.args,
        cwd,
        env: sandboxEnv(runHome ? { ...parentEnv, HOME: runHome } : parentEnv),
        clearEnv: true,
        stdin: "null",
        stdout: "piped",
        stderr: "piped",
        signal: AbortSignal.any(signals),
      }).output();
      const text = new TextDecoder().decode(out.stdout) + new TextDecoder().decode(out.stderr);
      return { out: text, code: out.code, ms: Date.now() - started, limits: line.limits };
    } finally {
      clearTimeout(timer);
      await line.release();
    }
  };
  const row = (probe: string, ok: boolean, detail: string) => rows.push({ probe, ok, detail });
  try {
    await Deno.writeTextFile(hostTmp, secret);
    for (const dir of [".git/hooks"]) await Deno.mkdir(join(git, dir), { recursive: true });
    await Deno.writeTextFile(join(git, ".git/config"), "[core]\n");

    // P2: the sandbox holds as root
    const outside = ["/etc", "/usr", ...(home ? [home] : []), join(ws, "..")].map((d) =>
      join(d, `${mark}-out`)
    );
    let r = await run(outside.map((p) => `echo x > '${p}'`).join("; "));
    const written = outside.filter(exists);
    row(
      "Write outside the workspace",
      written.length === 0,
      written.length ? `wrote ${written.join(", ")}` : `refused ${outside.length} paths`,
    );
    r = await run(`mount -o remount,rw / 2>&1 && echo REMOUNTED; echo x > /${mark}-out 2>/dev/null; true`);
    row("Remount / read-write", !r.out.includes("REMOUNTED") && !exists(`/${mark}-out`), firstLine(r.out));
    r = await run(`umount -l /tmp 2>&1; cat ${hostTmp} 2>&1`);
    row("Unmount /tmp to reach the host's /tmp", !r.out.includes(secret), firstLine(r.out));
    r = await run(`mknod /tmp/${mark} b 8 0 2>&1 && echo MADE; mknod ./dev b 8 0 2>/dev/null; true`);
    row(
      "Create a block device (mknod)",
      !r.out.includes("MADE") && !exists(join(ws, "dev")),
      firstLine(r.out),
    );
    r = await run("grep -E '^(CapEff|CapBnd|NoNewPrivs)' /proc/self/status | tr -s '\\t\\n' '  '");
    const caps = /CapEff: 0+ CapBnd: 0+ NoNewPrivs: 1/.test(r.out);
    row("Keep capabilities or gain privileges (setuid)", caps, r.out.trim());
    r = await run(
      "command -v unshare >/dev/null || { echo 'no unshare'; exit; }; unshare -Ur true 2>&1 && echo NESTED",
    );
    row("Make a nested user namespace", !r.out.includes("NESTED"), firstLine(r.out));
    r = await run(`kill -0 ${Deno.pid} 2>&1 && echo SIGNALLED; true`);
    row("Signal a host process", !r.out.includes("SIGNALLED"), firstLine(r.out));
    r = await run(
      'for f in /sys/fs/cgroup/cgroup.procs /sys/fs/cgroup/*/cgroup.procs; do echo $$ 2>/dev/null > "$f" && echo "MOVED $f"; done; true',
    );
    row(
      "Leave the limits cgroup",
      !r.out.includes("MOVED"),
      r.out.includes("MOVED") ? firstLine(r.out) : "cgroup.procs read-only",
    );

    // P7: no network unless allowed
    if (settings.allowNetwork) row("Reach a host TCP port", true, "skipped: the settings allow network");
    else {
      const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
      let reached = false;
      const accepting = (async () => {
        for await (const conn of listener) {
          reached = true;
          conn.close();
        }
      })();
      r = await run(`exec 3<>/dev/tcp/127.0.0.1/${listener.addr.port} 2>&1 && echo CONNECTED; true`);
      listener.close();
      await accepting.catch(() => {});
      row("Reach a host TCP port", !reached && !r.out.includes("CONNECTED"), firstLine(r.out));
    }

    // P6: secrets stay out
    r = await run("printenv OPENAI_API_KEY; env | grep -c paddock-check; true");
    row("Read a secret from the environment", !r.out.includes(secret), "OPENAI_API_KEY not passed");
    const fakeHome = join(ws, "home");
    await Deno.mkdir(join(fakeHome, ".ssh"), { recursive: true });
    await Deno.writeTextFile(join(fakeHome, ".ssh/id_ed25519"), secret);
    await Deno.writeTextFile(join(fakeHome, ".netrc"), secret);
    r = await run("cat ~/.ssh/id_ed25519 ~/.netrc 2>&1; ls -A ~/.ssh", ws, fakeHome);
    const realStores = home ? storesIn(home) : [];
    // counts bytes, so a leak never copies a secret into the report
    const real = realStores.length
      ? await run(realStores.map((p) => `wc -c < '${p}' 2>/dev/null`).join("; "))
      : undefined;
    const leaked = r.out.includes(secret) || (real !== undefined && /[1-9]/.test(real.out));
    row(
      "Read credential stores in the home folder",
      !leaked,
      `~/.ssh and ~/.netrc of a test home read empty; ${realStores.length} of this home's stores checked`,
    );
    r = await run("wc -c < /etc/shadow 2>&1");
    const shadow = /^\s*(\d+)\s*$/.exec(r.out)?.[1];
    row(
      "Read root-only files (/etc/shadow)",
      shadow === undefined || shadow === "0",
      shadow === undefined ? firstLine(r.out) : `${shadow} bytes readable`,
    );

    // P3: nothing written inside a run executes outside it
    const before = list(ws);
    r = await run(
      "mkdir -p .paddock; echo '{}' > .paddock/settings.json; echo '{}' > .mcp.json; mkdir -p .git/hooks; echo x > .git/hooks/pre-commit; mkdir -p .vscode; echo '{}' > .vscode/settings.json; echo '[core]' > .gitmodules; true",
    );
    const after = list(ws);
    row(
      "Create protected paths (.paddock, .mcp.json, .git/hooks, .vscode)",
      after === before,
      after === before ? "none created, no placeholder left behind" : `workspace now holds: ${after}`,
    );
    const gitBefore = list(join(git, ".git"));
    r = await run(
      "echo x > .git/hooks/pre-commit; echo '[core] fsmonitor = x' >> .git/config; echo /tmp > .git/commondir; mv .git .git2; true",
      git,
    );
    const config = await Deno.readTextFile(join(git, ".git/config"));
    const gitAfter = list(join(git, ".git"));
    row(
      "Plant a git hook, edit git config, redirect or replace .git",
      gitAfter === gitBefore && config === "[core]\n" && !exists(join(git, ".git2")),
      gitAfter === gitBefore ? "refused" : `.git now holds: ${gitAfter}`,
    );

    // P8: fork bombs and memory hogs are capped
    const maxProcesses = settings.maxProcesses ?? DEFAULT_MAX_PROCESSES;
    const storm = Math.min(2 * maxProcesses, 4000);
    r = await run(
      `exec /bin/sh -c '( i=0; while [ $i -lt ${storm} ]; do sleep 30 & i=$((i+1)); done ) 2>/dev/null; set -- /proc/[0-9]*; echo "procs=$#"'`,
    );
    const procs = Number(/procs=(\d+)/.exec(r.out)?.[1] ?? NaN);
    row(
      "Fork storm",
      procs <= maxProcesses && r.ms < timeoutMs,
      `${procs} processes of ${storm} tried (cap ${maxProcesses}, ${r.limits}), ${r.ms} ms`,
    );
    const maxMemoryMiB = settings.maxMemoryMiB ?? DEFAULT_MAX_MEMORY_MIB;
    // a string doubling until it is stopped: fast, unlike a pipe into `tail`
    r = await run(
      `if command -v awk >/dev/null; then awk 'BEGIN { s = "x"; while (length(s) < ${
        2 * maxMemoryMiB
      } * 1048576) s = s s }'; else head -c ${2 * maxMemoryMiB}M /dev/zero | tail; fi; echo "exit=$?"`,
    );
    const exit = /exit=(\d+)/.exec(r.out)?.[1];
    row(
      "Memory hog",
      exit !== undefined && exit !== "0" && r.ms < timeoutMs,
      `${
        2 * maxMemoryMiB
      } MiB asked, stopped with exit ${exit} (cap ${maxMemoryMiB} MiB, ${r.limits}), ${r.ms} ms`,
    );
  } finally {
    for (const path of [ws, git, hostTmp]) await Deno.remove(path, { recursive: true }).catch(() => {});
  }
  return rows;
}

/**
 * The rows as a text table.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { formatCheckTable } from "./check.ts";
 * const table = formatCheckTable([{ probe: "Remount / read-write", ok: true, detail: "permission denied" }]);
 * assert.match(table, /^probe +result +detail\n/);
 * assert.match(table, /Remount \/ read-write +pass +permission denied/);
 * ```
 */
export function formatCheckTable(rows: readonly CheckRow[]): string {
  const width = Math.max(5, ...rows.map((r) => r.probe.length));
  const lines = [`${"probe".padEnd(width)}  result  detail`];
  for (const r of rows) {
    lines.push(`${r.probe.padEnd(width)}  ${(r.ok ? "pass" : "FAIL").padEnd(6)}  ${r.detail}`);
  }
  const failed = rows.filter((r) => !r.ok).length;
  lines.push(failed ? `${failed} of ${rows.length} probes FAILED` : `all ${rows.length} probes passed`);
  return lines.join("\n") + "\n";
}

function readEnv(): Record<string, string> {
  try {
    return Deno.env.toObject();
  } catch {
    return { PATH: "/usr/local/bin:/usr/bin:/bin" };
  }
}

function list(dir: string): string {
  return [...Deno.readDirSync(dir)].map((e) => e.name).sort().join(" ");
}

function firstLine(text: string): string {
  return text.trim().split("\n")[0]?.slice(0, 100) || "(no output)";
}

/** Existing regular files among the usual credential stores of `home` (contents must read as empty). */
function storesIn(home: string): string[] {
  const found: string[] = [];
  for (
    const rel of [
      ".netrc",
      ".npmrc",
      ".git-credentials",
      ".pypirc",
      ".aws/credentials",
      ".docker/config.json",
    ]
  ) {
    const path = join(home, rel);
    try {
      if (Deno.statSync(path).isFile) found.push(path);
    } catch {
      // not there
    }
  }
  for (const dir of [".ssh", ".gnupg", ".kube", ".config/gcloud"]) {
    try {
      for (const e of Deno.readDirSync(join(home, dir))) if (e.isFile) found.push(join(home, dir, e.name));
    } catch {
      // not there
    }
  }
  return found;
}

/**
 * `paddock`: the command-line entry. Each subcommand lives in its own file
 * under `src/cli/`, loaded only when it is the one asked for; the overview,
 * each command's help and its flags come from the table in `flags.ts`, so
 * `--help` loads no command at all. This file only dispatches.
 *
 * @module
 */
import { type CliCommand, type CliIo, UsageError } from "./command.ts";
import { readEnv } from "./env.ts";
import { type CommandName, helpText, isCommandName, overviewText } from "./flags.ts";

/** Each subcommand's module, imported on first use (the order of `COMMANDS` in `flags.ts` is the overview's). */
export const COMMAND_MODULES: Readonly<Record<CommandName, () => Promise<{ command: CliCommand }>>> = {
  tools: () => import("./cmd_tools.ts"),
  perms: () => import("./cmd_perms.ts"),
  exec: () => import("./cmd_exec.ts"),
  run: () => import("./cmd_run.ts"),
  chat: () => import("./cmd_chat.ts"),
  mcp: () => import("./cmd_mcp.ts"),
  sandbox: () => import("./cmd_sandbox.ts"),
  trust: () => import("./cmd_trust.ts"),
  // CLI-COMMANDS (one dynamic import per command, and its entry in COMMANDS of flags.ts; keep this marker)
};

/**
 * Runs the CLI with `args`; returns the exit code.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { main } from "./main.ts";
 * const lines: string[] = [];
 * const code = await main(["--help"], {
 *   out: (t) => lines.push(t), err: (t) => lines.push(t), stdin: new ReadableStream(),
 *   isTerminal: false, env: {}, cwd: Deno.cwd(), signal: new AbortController().signal,
 * });
 * assert.ok(code === 0 && lines.join("").includes("Usage"));
 * ```
 */
export async function main(args: string[], io: CliIo): Promise<number> {
  const [name, ...rest] = args;
  if (name === undefined || name === "--help" || name === "-h" || name === "help") {
    io.out(overviewText() + "\n");
    return name === undefined ? 2 : 0;
  }
  if (name === "--version" || name === "-V") {
    io.out("paddock 0.1.0\n");
    return 0;
  }
  if (!isCommandName(name)) {
    const what = name.startsWith("-") ? "option" : "command";
    io.err(`paddock: unknown ${what} "${name}": run 'paddock --help' for the commands\n`);
    return 2;
  }
  const own = rest.includes("--") ? rest.slice(0, rest.indexOf("--")) : rest;
  if (own.includes("--help") || own.includes("-h")) {
    io.out(helpText(name) + "\n");
    return 0;
  }
  const { command } = await COMMAND_MODULES[name]();
  try {
    return await command.run(rest, io);
  } catch (err) {
    if (err instanceof UsageError) {
      io.err(`paddock ${name}: ${err.message}\nRun 'paddock ${name} --help' for usage.\n`);
      return 2;
    }
    throw err;
  }
}

/** Builds the real process's I/O: stdout, stderr, stdin and a signal for SIGINT/SIGTERM. */
export function processIo(): CliIo & { dispose(): void } {
  const enc = new TextEncoder();
  const controller = new AbortController();
  const handlers: Array<[Deno.Signal, () => void]> = [];
  let interrupt: (() => void) | undefined; // a command's own Ctrl-C handling (see CliIo.onInterrupt)
  for (const sig of ["SIGINT", "SIGTERM", "SIGHUP"] as const) {
    const h = () => sig === "SIGINT" && interrupt ? interrupt() : controller.abort(new Error(sig));
    try {
      Deno.addSignalListener(sig, h);
      handlers.push([sig, h]);
    } catch {
      // signals are not available everywhere
    }
  }
  const env = readEnv();
  return {
    out: (t) => Deno.stdout.writeSync(enc.encode(t)),
    err: (t) => Deno.stderr.writeSync(enc.encode(t)),
    stdin: Deno.stdin.readable,
    isTerminal: Deno.stdin.isTerminal(),
    env,
    cwd: Deno.cwd(),
    signal: controller.signal,
    onInterrupt: (handler) => {
      interrupt = handler;
      return () => {
        if (interrupt === handler) interrupt = undefined;
      };
    },
    dispose: () => handlers.forEach(([s, h]) => Deno.removeSignalListener(s, h)),
  };
}

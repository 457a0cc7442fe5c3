/**
 * `paddock`: the command-line entry. Each subcommand lives in its own file
 * under `src/cli/`; this file only dispatches.
 *
 * @module
 */
import { type CliCommand, type CliIo, UsageError } from "./command.ts";
import { readEnv } from "./env.ts";

/** The subcommands, in the order `--help` lists them. */
export function commands(): Promise<CliCommand[]> {
  return Promise.all([
    import("./cmd_tools.ts").then((m) => m.command),
    import("./cmd_perms.ts").then((m) => m.command),
    import("./cmd_exec.ts").then((m) => m.command),
    import("./cmd_run.ts").then((m) => m.command),
    import("./cmd_chat.ts").then((m) => m.command),
    import("./cmd_mcp.ts").then((m) => m.command),
    // CLI-COMMANDS (one dynamic import per command; keep this marker)
  ]);
}

/** The overview shown by `paddock --help`. */
export async function overview(): Promise<string> {
  const list = await commands();
  const width = Math.max(0, ...list.map((c) => c.name.length));
  return [
    "paddock: a sandboxed agent runtime for Deno",
    "",
    "Usage: paddock <command> [options]",
    "",
    "Commands:",
    ...list.map((c) => `  ${c.name.padEnd(width)}  ${c.summary}`),
    "",
    "Run 'paddock <command> --help' for a command's options.",
    "Exit codes: 0 ok, 1 tool error, 2 usage error.",
  ].join("\n");
}

/**
 * Runs the CLI with `args`; returns the exit code.
 *
 * @example
 * ```ts
 * import { main } from "./main.ts";
 * const lines: string[] = [];
 * const code = await main(["--help"], {
 *   out: (t) => lines.push(t), err: (t) => lines.push(t), stdin: new ReadableStream(),
 *   isTerminal: false, env: {}, cwd: Deno.cwd(), signal: new AbortController().signal,
 * });
 * console.assert(code === 0 && lines.join("").includes("Usage"));
 * ```
 */
export async function main(args: string[], io: CliIo): Promise<number> {
  const [name, ...rest] = args;
  if (name === undefined || name === "--help" || name === "-h" || name === "help") {
    io.out((await overview()) + "\n");
    return name === undefined ? 2 : 0;
  }
  if (name === "--version" || name === "-V") {
    io.out("paddock 0.1.0\n");
    return 0;
  }
  const command = (await commands()).find((c) => c.name === name);
  if (!command) {
    io.err(`paddock: unknown command "${name}": run 'paddock --help' for the list\n`);
    return 2;
  }
  if (rest.includes("--help") || rest.includes("-h")) {
    io.out(command.help + "\n");
    return 0;
  }
  try {
    return await command.run(rest, io);
  } catch (err) {
    if (
      err instanceof UsageError || (err as { code?: string }).code === "ERR_PARSE_ARGS_UNKNOWN_OPTION" ||
      (err as { code?: string }).code === "ERR_PARSE_ARGS_INVALID_OPTION_VALUE" ||
      (err as { code?: string }).code === "ERR_PARSE_ARGS_UNEXPECTED_POSITIONAL"
    ) {
      io.err(`paddock ${name}: ${(err as Error).message}\nRun 'paddock ${name} --help' for usage.\n`);
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

/**
 * Least-privilege launcher: computes the Deno flags the given `paddock`
 * command needs (as `paddock perms` would) and runs `cli.ts` under exactly
 * those, forwarding stdio, signals and the exit code.
 *
 * @example
 * ```sh
 * deno task start tools          # = deno run <computed flags> cli.ts tools
 * deno task start run "Fix the failing test"
 * ```
 *
 * @module
 */
import { fileURLToPath } from "node:url";
import { main, processIo } from "./src/cli/main.ts";

/** Computes the flags for `args` by asking `paddock perms --json -- <args>`. */
export async function launchFlags(args: string[]): Promise<string[]> {
  const io = processIo();
  let out = "";
  const errs: string[] = [];
  try {
    const code = await main(["perms", "--json", "--", ...args], {
      ...io,
      out: (t) => (out += t),
      err: (t) => errs.push(t),
    });
    if (code !== 0) throw new Error(errs.join("").trim() || `paddock perms exited ${code}`);
  } finally {
    io.dispose();
  }
  return JSON.parse(out).flags as string[];
}

/** Whether `args` only ask for help (which needs no permission, so no flags are computed). */
function asksForHelp(args: readonly string[]): boolean {
  const own = args.includes("--") ? args.slice(0, args.indexOf("--")) : args;
  return args[0]?.startsWith("-") === true || own.includes("--help") || own.includes("-h");
}

if (import.meta.main) {
  const args = Deno.args.length ? [...Deno.args] : ["--help"];
  const flags = asksForHelp(args) ? ["--no-prompt"] : await launchFlags(args);
  const cli = fileURLToPath(new URL("./cli.ts", import.meta.url));
  const child = new Deno.Command(Deno.execPath(), {
    args: ["run", ...flags, cli, ...args],
    stdin: "inherit",
    stdout: "inherit",
    stderr: "inherit",
  }).spawn();
  for (const sig of ["SIGINT", "SIGTERM"] as const) {
    Deno.addSignalListener(sig, () => {
      try {
        child.kill(sig);
      } catch {
        // already gone
      }
    });
  }
  const status = await child.status;
  Deno.exit(status.code);
}

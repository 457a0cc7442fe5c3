/**
 * `paddock sandbox check`: runs the sandbox's escape probes on this machine
 * (`src/sandbox/check.ts`) and prints one row per probe, or the rows as JSON
 * with `--json`. Exits 0 when every probe passed, 1 when one failed or the
 * sandbox cannot start here (the message says why and how to fix it).
 *
 * @module
 */
import { type CliCommand, UsageError } from "./command.ts";
import { parseFlags } from "./flags.ts";

/** The `sandbox` subcommand. */
export const command: CliCommand = {
  async run(args, io) {
    const { values, positionals } = await parseFlags("sandbox", args);
    const [action, ...extra] = positionals;
    if (action !== "check") {
      throw new UsageError(action === undefined ? `missing action: "check"` : `unknown action "${action}"`);
    }
    if (extra.length) throw new UsageError(`unexpected argument "${extra[0]}"`);
    const { formatCheckTable, sandboxCheck } = await import("../sandbox/check.ts");
    let rows;
    try {
      rows = await sandboxCheck({ home: io.env.HOME, signal: io.signal });
    } catch (err) {
      const message = (err as Error).message +
        (err instanceof Deno.errors.NotCapable
          ? ": the probes make temp workspaces and judge the host's files, so they need -A (deno task cli sandbox check)"
          : "");
      if (values.json) io.out(JSON.stringify({ ok: false, error: message, rows: [] }, null, 2) + "\n");
      else io.err(`paddock sandbox: ${message}\n`);
      return 1;
    }
    const ok = rows.every((r) => r.ok);
    if (values.json) io.out(JSON.stringify({ ok, rows }, null, 2) + "\n");
    else io.out(formatCheckTable(rows));
    return ok ? 0 : 1;
  },
};

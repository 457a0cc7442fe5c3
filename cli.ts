/**
 * The `paddock` command.
 *
 * @example
 * ```sh
 * deno run --no-prompt --allow-read=. cli.ts tools
 * ```
 *
 * @module
 */
import { main, processIo } from "./src/cli/main.ts";

if (import.meta.main) {
  const io = processIo();
  let code: number;
  try {
    code = await main(Deno.args, io);
  } catch (err) {
    io.err(`paddock: ${err instanceof Error ? err.message : String(err)}\n`);
    code = 1;
  }
  io.dispose();
  Deno.exit(code);
}

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
  const code = await main(Deno.args, io);
  io.dispose();
  Deno.exit(code);
}

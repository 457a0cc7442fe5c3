/**
 * The thinnest Deno program that answers a Grep query: spawns rg with the
 * arguments it is given (the exact ones the Grep tool passes), in the folder
 * given, and copies rg's output to stdout. The baseline of the
 * `paddock exec Grep` pair in `bench/startup.ts`.
 *
 * @example
 * ```sh
 * deno run -A bench/_thin_rg.ts <cwd> <rg> <rg arguments...>
 * ```
 *
 * @module
 */
const [cwd, rg, ...args] = Deno.args;
const { code, stdout } = await new Deno.Command(rg, { args, cwd, stdin: "null", stdout: "piped" }).output();
await Deno.stdout.write(stdout);
Deno.exit(code === 1 ? 0 : code); // rg exits 1 when nothing matched

/**
 * `paddock tools`: lists the tools, or prints their OpenAI definitions.
 *
 * @module
 */
import { type CliCommand, UsageError } from "./command.ts";
import { parseFlags } from "./flags.ts";
import { startRuntime } from "./options.ts";

/** The `tools` subcommand. */
export const command: CliCommand = {
  async run(args, io) {
    const { values, positionals } = await parseFlags("tools", args);
    if (positionals.length) throw new UsageError(`unexpected argument "${positionals[0]}"`);
    const { runtime } = await startRuntime({ ...values, quiet: values.quiet ?? values.json }, io);
    try {
      await runtime.registry.load(); // every description and schema is printed
      if (values.json) {
        io.out(JSON.stringify(runtime.registry.definitions(), null, 2) + "\n");
        return 0;
      }
      const tools = runtime.registry.list();
      const width = Math.max(0, ...tools.map((t) => t.name.length));
      for (const t of tools) {
        const off = runtime.registry.disabledReason(t.name);
        const first = t.description.split("\n")[0];
        io.out(`${t.name.padEnd(width)}  ${t.sideEffect.padEnd(9)}  ${off ? `(disabled: ${off})` : first}\n`);
      }
      return 0;
    } finally {
      await runtime.close();
    }
  },
};

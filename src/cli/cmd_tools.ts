/**
 * `paddock tools`: lists the tools, or prints their OpenAI definitions.
 *
 * @module
 */
import { parseArgs } from "node:util";
import { type CliCommand, UsageError } from "./command.ts";
import { RUNTIME_FLAGS, RUNTIME_FLAGS_HELP, startRuntime } from "./options.ts";

/** The `tools` subcommand. */
export const command: CliCommand = {
  name: "tools",
  summary: "List the tools, or print their OpenAI-format definitions with --json",
  help: `Usage: paddock tools [--json] [runtime options]

Lists every enabled tool with its side-effect class. With --json, prints the
definitions exactly as they are sent to a chat-completions endpoint.

  --json                     Print the OpenAI-format tool definitions

${RUNTIME_FLAGS_HELP}`,
  async run(args, io) {
    const { values, positionals } = parseArgs({
      args,
      options: { ...RUNTIME_FLAGS, json: { type: "boolean" } },
      allowPositionals: true,
      strict: true,
    });
    if (positionals.length) throw new UsageError(`unexpected argument "${positionals[0]}"`);
    const { runtime } = await startRuntime({ ...values, quiet: values.quiet ?? values.json }, io, {
      walkHelper: false,
    });
    try {
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

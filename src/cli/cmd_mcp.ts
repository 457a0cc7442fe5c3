/**
 * `paddock mcp`: serves the runtime's tools over MCP (stdio by default,
 * streamable HTTP with `--http`), with the permission mode, rules and sandbox
 * settings of this process.
 *
 * @module
 */
import { mcpInteraction } from "../mcp/interaction.ts";
import { serveMcpHttp, serveMcpStdio } from "../mcp/server.ts";
import { type CliCommand, UsageError } from "./command.ts";
import { parseFlags } from "./flags.ts";
import { startRuntime } from "./options.ts";

/** The `mcp` subcommand. */
export const command: CliCommand = {
  async run(args, io) {
    const { values, positionals } = await parseFlags("mcp", args);
    if (positionals.length) throw new UsageError(`unexpected argument "${positionals[0]}"`);
    let port = 0;
    if (values.port !== undefined) {
      if (!values.http) throw new UsageError("--port needs --http");
      port = Number(values.port);
      if (!Number.isInteger(port) || port < 0 || port > 65_535) {
        throw new UsageError(`--port must be a whole number from 0 to 65535, got "${values.port}"`);
      }
    }
    // only an explicit --mcp-config is proxied, so a project config that starts 'paddock mcp' cannot loop
    // AskUserQuestion and ExitPlanMode ask the calling client (elicitation), never this process's stdin
    const { runtime } = await startRuntime(values, io, {
      mcp: "explicit",
      toolOptions: { interaction: mcpInteraction() },
    });
    try {
      const count = runtime.registry.enabled().length;
      if (values.http) {
        const server = serveMcpHttp(runtime, { port, signal: io.signal });
        io.err(`paddock mcp: serving ${count} tools at ${server.url} (Ctrl-C stops)\n`);
        await server.finished;
        await server.close();
      } else {
        io.err(`paddock mcp: serving ${count} tools on stdio\n`);
        await serveMcpStdio(runtime, { input: io.stdin, write: io.out, signal: io.signal });
      }
      return 0;
    } finally {
      await runtime.close();
    }
  },
};

/**
 * `paddock mcp`: serves the runtime's tools over MCP (stdio by default,
 * streamable HTTP with `--http`), with the permission mode, rules and sandbox
 * settings of this process.
 *
 * @module
 */
import { parseArgs } from "node:util";
import { mcpInteraction } from "../mcp/interaction.ts";
import { serveMcpHttp, serveMcpStdio } from "../mcp/server.ts";
import { type CliCommand, UsageError } from "./command.ts";
import { RUNTIME_FLAGS, RUNTIME_FLAGS_HELP, startRuntime } from "./options.ts";

/** The `mcp` subcommand. */
export const command: CliCommand = {
  name: "mcp",
  summary: "Serve Paddock's sandboxed tools to any MCP client (stdio, or HTTP with --http)",
  help: `Usage: paddock mcp [--http [--port <n>]] [runtime options]

Serves the enabled tools over the Model Context Protocol. Every call runs
through Paddock's runner: the permission mode, rules and --sandbox of this
process apply, and tool annotations tell the client each tool's side-effect
class. Calls that need confirmation are asked through the client when it
supports MCP elicitation, and refused otherwise (allow them with --allow,
--allowed-tools or --permission-mode). AskUserQuestion and ExitPlanMode are
asked through elicitation too, and not listed to clients without it.

  --http           Serve streamable HTTP at http://127.0.0.1:<port>/mcp instead of stdio
  --port <n>       Port for --http (default: 0, a free port; the URL is printed on stderr)

MCP servers are proxied only when --mcp-config names a file (a project's
.mcp.json is not read here, so a config that starts 'paddock mcp' cannot loop).

Client configuration (.mcp.json, Claude Desktop's claude_desktop_config.json):
  {"mcpServers": {"paddock": {"command": "paddock",
    "args": ["mcp", "--root", "/path/to/project", "--permission-mode", "acceptEdits"]}}}

${RUNTIME_FLAGS_HELP}`,
  async run(args, io) {
    const { values, positionals } = parseArgs({
      args,
      options: { ...RUNTIME_FLAGS, http: { type: "boolean" }, port: { type: "string" } },
      allowPositionals: true,
      strict: true,
    });
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
    const { runtime } = await startRuntime({ ...values }, io, {
      mcp: "explicit",
      interaction: mcpInteraction(),
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

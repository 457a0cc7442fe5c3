/**
 * `paddock run "<prompt>"`: one prompt, the agent loop to its end, the
 * answer streamed to stdout (or every event as JSON lines with `--json`).
 *
 * @module
 */
import { parseArgs } from "node:util";
import { runAgent } from "../loop/agent_loop.ts";
import type { StopReason } from "../loop/events.ts";
import { AGENT_FLAGS, AGENT_FLAGS_HELP, setupAgent } from "./agent_setup.ts";
import { type CliCommand, type CliIo, UsageError } from "./command.ts";
import { RUNTIME_FLAGS, RUNTIME_FLAGS_HELP } from "./options.ts";

/** Exit code for each way a run can stop. */
export const STOP_EXIT_CODES: Readonly<Record<StopReason, number>> = Object.freeze({
  completed: 0,
  max_turns: 1,
  token_budget: 1,
  error: 1,
  aborted: 130,
});

/** The `run` subcommand. */
export const command: CliCommand = {
  name: "run",
  summary: "Run the agent on one prompt against an OpenAI-compatible endpoint",
  help: `Usage: paddock run "<prompt>" [options]
       echo "<prompt>" | paddock run [options]

Runs the agent loop on one prompt: the model calls the built-in tools under
the permission mode and rules until it answers without a tool call.

Configuration, first found wins: flags, then env (PADDOCK_MODEL,
OPENAI_BASE_URL, OPENAI_API_KEY), then .paddock/settings.json.
Exit codes: 0 done, 1 error or limit reached, 2 usage or configuration error,
130 interrupted.

${AGENT_FLAGS_HELP}

${RUNTIME_FLAGS_HELP}`,
  async run(args, io) {
    const { values, positionals } = parseArgs({
      args,
      options: { ...RUNTIME_FLAGS, ...AGENT_FLAGS },
      allowPositionals: true,
      strict: true,
    });
    let prompt = positionals.join(" ").trim();
    if (prompt === "" && !io.isTerminal) prompt = (await readAll(io.stdin)).trim();
    if (prompt === "") throw new UsageError(`give a prompt: paddock run "<what to do>"`);
    const setup = await setupAgent(values, io);
    if (typeof setup === "number") return setup;
    try {
      let stop: StopReason = "error";
      for await (const event of runAgent({ ...setup.loopOptions, prompt, signal: io.signal })) {
        setup.renderer.render(event);
        if (event.type === "result") stop = event.stopReason;
      }
      return STOP_EXIT_CODES[stop];
    } finally {
      await setup.runtime.close();
    }
  },
};

async function readAll(stream: CliIo["stdin"]): Promise<string> {
  return await new Response(stream).text();
}

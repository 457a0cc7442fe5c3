/**
 * `paddock run "<prompt>"`: one prompt, the agent loop to its end, the
 * answer streamed to stdout (or every event as JSON lines with `--json`).
 *
 * @module
 */
import { runAgent } from "../loop/agent_loop.ts";
import type { StopReason } from "../loop/events.ts";
import { setupAgent } from "./agent_setup.ts";
import { type CliCommand, type CliIo, UsageError } from "./command.ts";
import { parseFlags } from "./flags.ts";

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
  async run(args, io) {
    const { values, positionals } = await parseFlags("run", args);
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

/**
 * `paddock chat`: an interactive session. Each line read is a prompt; the
 * conversation carries over between prompts. `/clear` starts over, `/exit`
 * (or end of input) quits. Ctrl-C during a turn stops that turn only (the
 * model request and running tools are aborted, the history stays valid) and
 * a second Ctrl-C, or one at the prompt, quits.
 *
 * @module
 */
import { parseArgs } from "node:util";
import { runAgent } from "../loop/agent_loop.ts";
import type { ChatMessage } from "../loop/client.ts";
import { AGENT_FLAGS, AGENT_FLAGS_HELP, setupAgent } from "./agent_setup.ts";
import { type CliCommand, UsageError } from "./command.ts";
import { readTerminalLine } from "./interactive.ts";
import { RUNTIME_FLAGS, RUNTIME_FLAGS_HELP } from "./options.ts";

/** The `chat` subcommand. */
export const command: CliCommand = {
  name: "chat",
  summary: "Chat with the agent: one prompt per line, the conversation carries over",
  help: `Usage: paddock chat [options]

Reads prompts line by line (from the terminal or a pipe) and runs the agent
loop on each, keeping the conversation. Commands: /clear starts over, /exit
quits (so does end of input, Ctrl-D). Ctrl-C stops the current turn and
returns to the prompt; Ctrl-C again (or at the prompt) quits.

${AGENT_FLAGS_HELP}

${RUNTIME_FLAGS_HELP}`,
  async run(args, io) {
    const { values, positionals } = parseArgs({
      args,
      options: { ...RUNTIME_FLAGS, ...AGENT_FLAGS },
      allowPositionals: true,
      strict: true,
    });
    if (positionals.length) {
      throw new UsageError(`chat takes no prompt argument: use paddock run "<prompt>" for one shot`);
    }
    const setup = await setupAgent(values, io);
    if (typeof setup === "number") return setup;
    let history: ChatMessage[] = [];
    let failed = false;
    try {
      if (io.isTerminal) {
        io.err(
          `paddock chat: ${setup.model.model} at ${setup.model.baseUrl}. /clear starts over, /exit quits.\n`,
        );
      }
      for (;;) {
        if (io.isTerminal) io.err("\n> ");
        let line: string | null;
        try {
          line = await readTerminalLine(io.stdin, io.signal);
        } catch {
          if (io.signal.aborted) return 130; // Ctrl-C (or SIGTERM) at the prompt
          break;
        }
        if (line === null) break;
        const prompt = line.trim();
        if (prompt === "") continue;
        if (prompt === "/exit" || prompt === "/quit") break;
        if (prompt === "/clear") {
          history = [];
          io.err("(conversation cleared)\n");
          continue;
        }
        // Ctrl-C stops this turn only; handing SIGINT back at once makes a second Ctrl-C quit
        const turn = new AbortController();
        const release = io.onInterrupt?.(() => {
          release?.();
          io.err("\n(interrupted: Ctrl-C again quits)\n");
          turn.abort(new Error("Interrupted by the user"));
        });
        try {
          const signal = AbortSignal.any([io.signal, turn.signal]);
          for await (const event of runAgent({ ...setup.loopOptions, prompt, history, signal })) {
            setup.renderer.render(event);
            if (event.type === "result") failed = event.stopReason === "error";
          }
        } finally {
          release?.();
        }
        if (io.signal.aborted) return 130;
      }
      return failed ? 1 : 0;
    } finally {
      await setup.runtime.close();
    }
  },
};

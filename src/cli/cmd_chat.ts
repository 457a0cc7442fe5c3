/**
 * `paddock chat`: an interactive session. Each line read is a prompt; the
 * conversation carries over between prompts. `/clear` starts over, `/exit`
 * (or end of input) quits. Ctrl-C during a turn stops that turn only (the
 * model request and running tools are aborted, the history stays valid) and
 * a second Ctrl-C, or one at the prompt, quits.
 *
 * @module
 */
import { runAgent } from "../loop/agent_loop.ts";
import type { ChatMessage } from "../loop/client.ts";
import { setupAgent } from "./agent_setup.ts";
import { type CliCommand, UsageError } from "./command.ts";
import { parseFlags } from "./flags.ts";
import { readTerminalLine } from "./interactive.ts";

/** The `chat` subcommand. */
export const command: CliCommand = {
  async run(args, io) {
    const { values, positionals } = await parseFlags("chat", args);
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

/**
 * A sub-agent run as a background task: its progress and final text go to
 * an output file, and it is a {@link TaskHandle} of kind `agent`, so
 * TaskOutput reads it and TaskStop stops it like a background command.
 *
 * @module
 */
import type { Session } from "../session/session.ts";
import { sessionTasks, type TaskHandle, type TaskStatus } from "../tasks/types.ts";
import type { AgentResult } from "./agent_loop.ts";

/** What {@link startBackgroundAgent} needs. */
export interface BackgroundAgentOptions {
  /** Task id (the agent id). */
  id: string;
  /** What it does, in a few words. */
  description: string;
  /** The session whose task list it joins; closing the session stops it. */
  session: Session;
  /** Start time (ms since the epoch). */
  startedAt: number;
  /** Runs the agent: stops on `signal`, reports progress lines through `log`. */
  run: (signal: AbortSignal, log: (text: string) => void) => Promise<AgentResult>;
  /** The text TaskOutput shows once the run ended (e.g. with the agent id and usage). Default the final text. */
  describe?: (result: AgentResult) => string;
}

/**
 * Starts the run and registers its task handle in the session.
 *
 * @example
 * ```ts ignore
 * const handle = startBackgroundAgent({ id, description: "scan", session, startedAt: Date.now(), run });
 * await handle.done();
 * ```
 */
export function startBackgroundAgent(options: BackgroundAgentOptions): TaskHandle {
  const outputPath = options.session.outputPath(`${options.id}.agent.log`);
  Deno.writeTextFileSync(outputPath, "");
  const append = (t: string) => Deno.writeTextFileSync(outputPath, t, { append: true });
  const controller = new AbortController();
  let status: TaskStatus = "running";
  let finalText: string | undefined;
  const done = options.run(controller.signal, append).then((result) => {
    finalText = options.describe?.(result) ?? result.text;
    append(`\n${finalText}\n`);
    if (result.stopReason === "aborted") status = "killed";
    else if (result.stopReason === "error") {
      status = "failed";
      append(`Error: ${result.error}\n`);
    } else status = "completed";
  }, (err) => {
    status = "failed";
    append(`Error: ${(err as Error).message}\n`);
  });
  const handle: TaskHandle = {
    id: options.id,
    kind: "agent",
    description: options.description,
    outputPath,
    startedAt: options.startedAt,
    status: () => status,
    exitCode: () => undefined,
    done: () => done,
    stop: async () => {
      controller.abort(new Error("Stopped"));
      await done;
    },
    result: () => finalText,
  };
  sessionTasks(options.session).set(options.id, handle);
  options.session.addCleanup(() => handle.stop());
  return handle;
}

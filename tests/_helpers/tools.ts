/** Small tools for tests of the registry and runner. */
import { z } from "zod";
import { defineTool, type SideEffect, type Tool } from "../../mod.ts";

/** A tool of a given class that echoes its `text`. */
export function echoTool(name = "Echo", sideEffect: SideEffect = "None"): Tool {
  return defineTool({
    name,
    description: `Echoes text (${sideEffect})`,
    sideEffect,
    input: z.strictObject({ text: z.string().describe("Text to echo") }),
    execute: (input) => Promise.resolve({ text: input.text, data: { echoed: input.text } }),
  });
}

/** A tool that streams `chunks` and then waits on its signal until aborted, or `ms`. */
export function slowTool(name = "Slow"): Tool {
  return defineTool({
    name,
    description: "Streams then waits",
    sideEffect: "ReadOnly",
    input: z.strictObject({
      ms: z.number().describe("How long to wait"),
      chunks: z.array(z.string()).describe("Output"),
    }),
    execute: async (input, ctx) => {
      for (const c of input.chunks) ctx.onOutput(c);
      await new Promise<void>((resolve, reject) => {
        const t = setTimeout(resolve, input.ms);
        ctx.signal.addEventListener("abort", () => {
          clearTimeout(t);
          reject(ctx.signal.reason);
        }, { once: true });
      });
      return "finished";
    },
  });
}

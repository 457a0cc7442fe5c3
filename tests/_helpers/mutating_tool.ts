// A Mutating user tool for CLI permission tests: writes `text` to notes.txt in the cwd.
import { z } from "zod";
import { defineTool } from "../../mod.ts";

export default defineTool({
  name: "Scribble",
  description: "Appends a note to notes.txt in the working directory",
  sideEffect: "Mutating",
  programs: ["definitely-not-installed-tool"],
  input: z.strictObject({ text: z.string().describe("The note") }),
  execute: async (input, ctx) => {
    await Deno.writeTextFile(`${ctx.cwd}/notes.txt`, input.text + "\n", { append: true });
    return "noted";
  },
});

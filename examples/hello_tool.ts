// A throwaway tool: define it, and `paddock exec --tools examples/hello_tool.ts Hello '{"name":"Ada"}'` runs it.
import { z } from "zod";
import { defineTool } from "../mod.ts";

export default defineTool({
  name: "Hello",
  description: "Greets someone by name and counts greetings in this session",
  sideEffect: "None",
  input: z.strictObject({ name: z.string().min(1).describe("Who to greet") }),
  execute: (input, ctx) => {
    const count = ctx.session.slot("hello.count", () => ({ n: 0 }));
    count.n++;
    return Promise.resolve({
      text: `Hello, ${input.name} (greeting ${count.n})`,
      data: { greetings: count.n },
    });
  },
});

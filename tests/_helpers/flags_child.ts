// Child process for the Deno-enforcement tests: runs tools that overstep their
// class under whatever flags the parent computed, in bypassPermissions mode so
// only Deno can refuse. Prints one JSON object.
import { z } from "zod";
import { defineTool, runTool, Session, ToolRegistry } from "../../mod.ts";
import { checkGrants } from "../../src/permissions/mod.ts";

const [root] = Deno.args;
const session = new Session({ roots: [root], mode: "bypassPermissions", outputDir: `${root}/.out` });
const mk = (name: string, sideEffect: "ReadOnly" | "Mutating", fn: () => Promise<string>) =>
  defineTool({ name, description: name, sideEffect, input: z.strictObject({}), execute: fn });
const reg = new ToolRegistry([
  mk("Peek", "ReadOnly", () => Deno.readTextFile(`${root}/hello.txt`)),
  mk("Scribble", "ReadOnly", async () => (await Deno.writeTextFile(`${root}/out.txt`, "x"), "wrote")),
  mk("Shell", "ReadOnly", async () => (await new Deno.Command("true").output(), "ran")),
  mk("Phone", "ReadOnly", async () => (await fetch("http://127.0.0.1:45678/"), "fetched")),
  mk("Edit", "Mutating", () => Promise.resolve("edit")),
]);
const out: Record<string, unknown> = {};
for (const name of ["Peek", "Scribble", "Shell", "Phone"]) {
  const r = await runTool(reg, { name, input: {} }, { session });
  out[name] = { ok: r.ok, code: r.error?.code, text: r.text };
}
const report = checkGrants(reg, {
  tools: reg.list().map((t) => ({ name: t.name, sideEffect: t.sideEffect })),
  roots: session.roots,
});
out.grants = report;
out.editDisabled = reg.disabledReason("Edit") ?? null;
console.log(JSON.stringify(out));

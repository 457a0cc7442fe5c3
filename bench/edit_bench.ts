// Edit on a 10 MiB text file (read check, replace, diff, atomic write with fsync).
//   deno bench -A bench/edit_bench.ts
import { dirname } from "node:path";
import { runTool } from "../src/tool/run_tool.ts";
import { ToolRegistry } from "../src/tool/registry.ts";
import { Session } from "../src/session/session.ts";
import { editTool } from "../src/tools/edit.ts";
import { readTool } from "../src/tools/read/read.ts";
import { textFixture } from "./_fixtures.ts";

const source = await textFixture("edit_10mib_source.txt", 10);
const file = source.replace("_source", "");
const rawFile = source.replace("_source", "_raw");
await Deno.copyFile(source, file);
await Deno.copyFile(source, rawFile);
const registry = new ToolRegistry([readTool, editTool]);
const session = new Session({ roots: [dirname(file)], outputDir: Deno.makeTempDirSync() });
await runTool(registry, { name: "Read", input: { file_path: file, limit: 1 } }, { session });
// a line in the middle, unique in the file
const target = "line 0000081920 ";
let flip = false, rawFlip = false;

Deno.bench(
  { name: "raw: readTextFile, replace, writeTextFile", group: "edit 10 MiB", baseline: true },
  async () => {
    const text = await Deno.readTextFile(rawFile);
    rawFlip = !rawFlip;
    const [a, b] = rawFlip ? [target, "LINE 0000081920 "] : ["LINE 0000081920 ", target];
    await Deno.writeTextFile(rawFile, text.replace(a, b));
  },
);

Deno.bench({ name: "Edit one line in the middle", group: "edit 10 MiB" }, async () => {
  flip = !flip;
  const [a, b] = flip ? [target, "LINE 0000081920 "] : ["LINE 0000081920 ", target];
  const r = await runTool(registry, {
    name: "Edit",
    input: { file_path: file, old_string: a, new_string: b },
  }, {
    session,
    preset: "none",
  });
  if (!r.ok) throw new Error(r.text);
});

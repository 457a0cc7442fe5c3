// Child process for the P1 race suite: runs `count` calls of one file tool on
// paths under `<ws>/sub` while the parent's swapper turns that folder into a
// symbolic link to `outside` and back. Prints one JSON line: calls that
// succeeded, were refused, and the texts of any that showed outside content.
// Runs under -A or under the flags toDenoFlags computes, whichever the parent chose.
import { runTool } from "../../src/tool/run_tool.ts";
import { ToolRegistry } from "../../src/tool/registry.ts";
import { Session } from "../../src/session/session.ts";
import { editTool } from "../../src/tools/edit.ts";
import { notebookEditTool } from "../../src/tools/notebook_edit.ts";
import { readTool } from "../../src/tools/read/read.ts";
import { writeTool } from "../../src/tools/write.ts";
import { createGrepTool } from "../../src/tools/grep/grep.ts";
import { createGlobTool } from "../../src/tools/glob.ts";

/** Text that exists only outside: seeing it in a result is a leak. */
export const SECRET = "TOPSECRET";
/** A file name that exists only outside. */
export const OUTSIDE_ONLY = "only_outside.txt";

/** The registry the child runs (the parent computes the flags from the same list). */
export const raceRegistry = (): ToolRegistry =>
  new ToolRegistry([readTool, writeTool, editTool, notebookEditTool, createGrepTool(), createGlobTool()]);

if (import.meta.main) {
  const [ws, out, tool, countText] = Deno.args;
  const count = Number(countText);
  const session = new Session({ roots: [ws], outputDir: out, mode: "bypassPermissions" });
  const reg = raceRegistry();
  const call = (name: string, input: Record<string, unknown>) => runTool(reg, { name, input }, { session });
  const sub = `${ws}/sub`;
  const result = { calls: 0, ok: 0, leaks: [] as string[], errors: {} as Record<string, number> };
  // a listing that names the outside-only file leaks it; a Read of that name echoes the name it was given
  const leaked = (text: string) => text.includes(SECRET) || (tool !== "Read" && text.includes(OUTSIDE_ONLY));
  let editFrom = "A", editTo = "B";
  // Edit and NotebookEdit need a Read first; it may take a few tries while the folder is away
  const readFirst = async (path: string) => {
    for (let n = 0; n < 10_000; n++) {
      const r = await call("Read", { file_path: path });
      if (leaked(r.text)) result.leaks.push(r.text.slice(0, 200));
      if (r.ok) return r.text;
    }
    return "";
  };
  for (let i = 0; i < count; i++) {
    let r;
    switch (tool) {
      case "Write":
        // a new file, then an overwrite of a file we wrote (outside holds one of that name)
        r = await call("Write", {
          file_path: i % 2 ? `${sub}/w.txt` : `${sub}/new-${i}.txt`,
          content: `W${i}\n`,
        });
        break;
      case "Edit":
        if (i === 0) await readFirst(`${sub}/e.txt`);
        r = await call("Edit", { file_path: `${sub}/e.txt`, old_string: editFrom, new_string: editTo });
        if (r.ok) [editFrom, editTo] = [editTo, editFrom];
        // a write lost to the swapper (it clears a folder a call made while `sub` was away): read again
        else if (/changed on disk|not been read/.test(r.text)) {
          editFrom = (await readFirst(`${sub}/e.txt`)).includes("B") ? "B" : "A";
          editTo = editFrom === "A" ? "B" : "A";
        }
        break;
      case "NotebookEdit":
        if (i === 0) await readFirst(`${sub}/nb.ipynb`);
        r = await call("NotebookEdit", {
          notebook_path: `${sub}/nb.ipynb`,
          cell_id: "cell-0",
          new_source: `x = ${i}`,
        });
        if (!r.ok && /changed on disk|not been read/.test(r.text)) await readFirst(`${sub}/nb.ipynb`);
        break;
      case "Read":
        r = await call("Read", { file_path: i % 2 ? `${sub}/a.txt` : `${sub}/${OUTSIDE_ONLY}` });
        break;
      case "Grep": {
        const modes = ["content", "files_with_matches", "count"];
        r = await call("Grep", {
          pattern: `${SECRET}|inside`,
          path: i % 3 ? sub : ws,
          output_mode: modes[i % 3],
        });
        break;
      }
      case "Glob":
        r = await call("Glob", { pattern: i % 2 ? "**/*.txt" : "*", path: i % 2 ? ws : sub });
        break;
      default:
        throw new Error(`unknown tool ${tool}`);
    }
    result.calls++;
    if (r.ok) result.ok++;
    else {
      const kind = r.text.replace(/"[^"]*"/g, "…").slice(0, 120);
      result.errors[kind] = (result.errors[kind] ?? 0) + 1;
    }
    if (leaked(r.text)) result.leaks.push(r.text.slice(0, 200));
  }
  console.log(JSON.stringify(result));
}

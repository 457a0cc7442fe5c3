/**
 * NotebookEdit: replaces, inserts or deletes one cell of a Jupyter notebook.
 * The edit is spliced into the file's text, so untouched cells (and the rest
 * of the file) stay byte for byte as they were. Needs a Read first.
 *
 * @module
 */
import { extname } from "node:path";
import { z } from "zod";
import { InvalidInputError } from "../errors.ts";
import { defineTool, type Tool } from "../tool/define_tool.ts";
import { atomicWriteFile, withFileLock } from "../files/atomic_write.ts";
import { openFileInside } from "../files/safe_fs.ts";
import { assertWritable } from "../files/writable.ts";
import { findCell, type NotebookCell, parseNotebook, serializeCell, sourceLines } from "../files/notebook.ts";
import { resolveSafePath } from "../session/workspace.ts";
import { assertFresh, recordWrite } from "../files/read_state.ts";
import { decodeText, encodeText } from "../files/text.ts";

/**
 * Structured result of NotebookEdit.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import type { NotebookEditData } from "./notebook_edit.ts";
 * const data: NotebookEditData = {
 *   notebookPath: "/w/a.ipynb",
 *   editMode: "insert",
 *   cellId: "c2",
 *   index: 1,
 *   cellType: "code",
 *   cellCount: 2,
 * };
 * assert.equal(`${data.editMode} ${data.cellId} at ${data.index}`, "insert c2 at 1");
 * ```
 */
export interface NotebookEditData {
  /** The notebook edited (as given, normalised). */
  notebookPath: string;
  /** What was done. */
  editMode: "replace" | "insert" | "delete";
  /** Id of the cell changed, inserted or deleted (`cell-N` when the notebook has no ids). */
  cellId: string;
  /** Its 0-based position (before a delete, after an insert). */
  index: number;
  /** Type of the cell (for delete, the type it had). */
  cellType: string;
  /** Cells in the notebook after the edit. */
  cellCount: number;
}

/**
 * NotebookEdit's input.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { type NotebookEditInput, notebookEditTool } from "./notebook_edit.ts";
 * const input: NotebookEditInput = {
 *   notebook_path: "/w/a.ipynb",
 *   cell_id: "cell-0",
 *   new_source: "print(1)",
 *   edit_mode: "insert",
 * };
 * assert.ok(notebookEditTool.input.safeParse(input).success);
 * ```
 */
export interface NotebookEditInput {
  /** Absolute path of the notebook. */
  notebook_path: string;
  /** Cell id or "cell-N". */
  cell_id?: string;
  /** The new source. */
  new_source: string;
  /** Cell type. */
  cell_type?: "code" | "markdown";
  /** What to do. Default replace. */
  edit_mode?: "replace" | "insert" | "delete";
}

const input: z.ZodType<NotebookEditInput> = z.strictObject({
  notebook_path: z.string().describe("Absolute path of the .ipynb file"),
  cell_id: z.string().optional().describe(
    'The cell: its id, or "cell-N" for the N-th cell (0-based). For insert, the new cell goes after it (first when omitted)',
  ),
  new_source: z.string().describe("The cell's new source (ignored for delete)"),
  cell_type: z.enum(["code", "markdown"]).optional().describe(
    "Type of the cell: needed for insert; for replace, changes the type. Default: the cell's own type",
  ),
  edit_mode: z.enum(["replace", "insert", "delete"]).optional().describe("What to do. Default replace"),
});

/**
 * The NotebookEdit tool.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { runTool, Session, ToolRegistry } from "../../mod.ts";
 * import { readTool } from "./read/read.ts";
 * import { notebookEditTool } from "./notebook_edit.ts";
 * const dir = await Deno.realPath(await Deno.makeTempDir());
 * const path = `${dir}/a.ipynb`;
 * const cell = {
 *   cell_type: "code",
 *   id: "c1",
 *   metadata: {},
 *   source: ["1 + 1"],
 *   outputs: [],
 *   execution_count: null,
 * };
 * await Deno.writeTextFile(
 *   path,
 *   JSON.stringify({ cells: [cell], metadata: {}, nbformat: 4, nbformat_minor: 5 }),
 * );
 * await using session = new Session({ roots: [dir] });
 * const registry = new ToolRegistry([readTool, notebookEditTool]);
 * await runTool(registry, { name: "Read", input: { file_path: path } }, { session });
 * const r = await runTool(registry, {
 *   name: "NotebookEdit",
 *   input: { notebook_path: path, cell_id: "c1", new_source: "2 + 2" },
 * }, { session, approver: () => Promise.resolve(true) });
 * assert.ok(r.ok);
 * assert.deepEqual(JSON.parse(await Deno.readTextFile(path)).cells[0].source, ["2 + 2"]);
 * await Deno.remove(dir, { recursive: true });
 * ```
 */
export const notebookEditTool: Tool<NotebookEditInput, NotebookEditData> = defineTool<
  NotebookEditInput,
  NotebookEditData
>({
  name: "NotebookEdit",
  description:
    "Changes one cell of a Jupyter notebook (.ipynb): replace its source, insert a new cell after " +
    'a given one (or first), or delete it. Name cells by id or "cell-N" (0-based). Replacing a code cell ' +
    "clears its outputs. Read the notebook first in this session.",
  sideEffect: "Mutating",
  input,
  summarize: (i) => i.notebook_path,
  execute: async (i, ctx) => {
    const safe = resolveSafePath(i.notebook_path, ctx, { param: "notebook_path" });
    const shown = safe.requested;
    if (extname(shown).toLowerCase() !== ".ipynb") {
      throw new InvalidInputError(`"${shown}" is not a notebook (.ipynb): use Edit for other files`);
    }
    const mode = i.edit_mode ?? "replace";
    if (mode === "insert" && !i.cell_type) {
      throw new InvalidInputError('Inserting a cell needs cell_type: "code" or "markdown"');
    }
    if (mode !== "insert" && i.cell_id === undefined) {
      throw new InvalidInputError(`edit_mode "${mode}" needs cell_id: the cell's id or "cell-N"`);
    }
    return await withFileLock(safe.real, async () => {
      using file = openFileInside(safe.real);
      const info = await file.stat();
      assertWritable(info, safe.requested);
      const bytes = await file.readAll(ctx.signal);
      await assertFresh(ctx.session, safe.real, shown, info, bytes, "edit");
      const decoded = decodeText(bytes);
      const nb = parseNotebook(decoded.text, shown);
      const { text } = nb;
      const withIds = nb.version.major > 4 || (nb.version.major === 4 && nb.version.minor >= 5);
      const asList = nb.cells.length === 0 || Array.isArray(nb.cells[0].source);
      let next: string, index: number, cell: NotebookCell;
      if (mode === "insert") {
        index = i.cell_id === undefined ? 0 : findCell(nb, i.cell_id, shown) + 1;
        cell = newCell(i.cell_type!, i.new_source, asList, withIds);
        const body = serializeCell(nb, cell);
        const sep = nb.unit === "" ? "," : `,\n${nb.cellIndent}`;
        if (nb.spans.length === 0) {
          const close = nb.unit === "" ? "" : `\n${nb.unit}`;
          const open = nb.unit === "" ? "" : `\n${nb.cellIndent}`;
          next = splice(text, nb.arraySpan, `[${open}${body}${close}]`);
        } else if (index === 0) {
          next = splice(text, [nb.spans[0][0], nb.spans[0][0]], body + sep);
        } else {
          const at = nb.spans[index - 1][1];
          next = splice(text, [at, at], sep + body);
        }
      } else {
        index = findCell(nb, i.cell_id!, shown);
        cell = nb.cells[index];
        if (mode === "delete") {
          const s = nb.spans;
          const span: [number, number] = s.length === 1
            ? [nb.arraySpan[0] + 1, nb.arraySpan[1] - 1]
            : index + 1 < s.length
            ? [s[index][0], s[index + 1][0]]
            : [s[index - 1][1], s[index][1]];
          next = splice(text, span, "");
        } else {
          cell = replaced(cell, i.new_source, i.cell_type);
          next = splice(text, nb.spans[index], serializeCell(nb, cell));
        }
      }
      const out = encodeText(next, decoded.format);
      await atomicWriteFile(safe.real, out, { signal: ctx.signal });
      await recordWrite(ctx.session, safe.real, out);
      const cellId = cell.id ?? `cell-${index}`;
      const cellCount = nb.cells.length + (mode === "insert" ? 1 : mode === "delete" ? -1 : 0);
      const verb = mode === "insert" ? "Inserted" : mode === "delete" ? "Deleted" : "Replaced";
      return {
        text:
          `${verb} ${cell.cell_type} cell "${cellId}" at index ${index} of "${shown}" (${cellCount} cells now)`,
        data: { notebookPath: shown, editMode: mode, cellId, index, cellType: cell.cell_type, cellCount },
      };
    });
  },
});

function splice(text: string, [start, end]: [number, number], insert: string): string {
  return text.slice(0, start) + insert + text.slice(end);
}

function newCell(type: "code" | "markdown", source: string, asList: boolean, withId: boolean): NotebookCell {
  const src = asList ? sourceLines(source) : source;
  const id = withId ? { id: crypto.randomUUID().replaceAll("-", "").slice(0, 8) } : {};
  // keys in sorted order, as nbformat writes them
  return type === "code"
    ? { cell_type: "code", execution_count: null, ...id, metadata: {}, outputs: [], source: src }
    : { cell_type: "markdown", ...id, metadata: {}, source: src };
}

function replaced(cell: NotebookCell, source: string, type: "code" | "markdown" | undefined): NotebookCell {
  const out: NotebookCell = { ...cell, source: Array.isArray(cell.source) ? sourceLines(source) : source };
  const to = type ?? cell.cell_type;
  out.cell_type = to;
  if (to === "code") {
    out.execution_count = null;
    out.outputs = [];
  } else {
    delete out.execution_count;
    delete out.outputs;
  }
  if (to !== cell.cell_type) {
    // keep the nbformat key order for the fields a type change adds
    const { cell_type, execution_count, id, metadata, outputs, source: src, ...rest } = out;
    return Object.fromEntries(
      Object.entries({ cell_type, execution_count, id, metadata, outputs, ...rest, source: src })
        .filter(([, v]) => v !== undefined),
    ) as NotebookCell;
  }
  return out;
}

/**
 * Edit: replaces an exact string in a file (once, or everywhere with
 * `replace_all`), keeping the file's encoding, BOM and line endings, and
 * writing atomically. Needs a Read of the file in this session first.
 *
 * @module
 */
import { extname } from "node:path";
import { z } from "zod";
import { InvalidInputError, NotFoundError } from "../errors.ts";
import { defineTool, type Tool } from "../tool/define_tool.ts";
import { atomicWriteFile, withFileLock } from "../files/atomic_write.ts";
import { openFileInside } from "../files/safe_fs.ts";
import { assertWritable } from "../files/writable.ts";
import { unifiedDiff } from "../files/diff.ts";
import { resolveSafePath } from "../session/workspace.ts";
import { assertFresh, recordWrite } from "../files/read_state.ts";
import {
  decodeText,
  encodeText,
  findText,
  lineEndingAt,
  numberLine,
  type TextFormat,
  toLf,
  withLineEnding,
} from "../files/text.ts";

/** Lines of context shown around an edit in the result. */
export const SNIPPET_CONTEXT_LINES = 3;
/** Most lines in the result's snippet. */
export const MAX_SNIPPET_LINES = 40;
/**
 * Most characters a file may have before or after an Edit (64 MiB). Checked
 * before the new text is built, so a `replace_all` that would grow a file past
 * it is an error, not an out-of-memory crash.
 */
export const MAX_EDIT_RESULT_CHARS: number = 64 * 1024 * 1024;

/**
 * Structured result of Edit.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { runTool, Session, ToolRegistry } from "../../mod.ts";
 * import { readTool } from "./read/read.ts";
 * import { type EditData, editTool } from "./edit.ts";
 * const dir = await Deno.realPath(await Deno.makeTempDir());
 * await Deno.writeTextFile(`${dir}/a.txt`, "x = 1\nx = 1\n");
 * await using session = new Session({ roots: [dir], mode: "acceptEdits" });
 * const registry = new ToolRegistry([readTool, editTool]);
 * await runTool(registry, { name: "Read", input: { file_path: `${dir}/a.txt` } }, { session });
 * const r = await runTool(registry, {
 *   name: "Edit",
 *   input: { file_path: `${dir}/a.txt`, old_string: "1", new_string: "2", replace_all: true },
 * }, { session });
 * const data = r.data as EditData;
 * assert.equal(data.replacements, 2);
 * assert.equal(data.startLine, 1);
 * await Deno.remove(dir, { recursive: true });
 * ```
 */
export interface EditData {
  /** The path edited (as given, normalised). */
  filePath: string;
  /** Whether the file was created (empty `old_string` on a missing file). */
  created: boolean;
  /** How many occurrences were replaced. */
  replacements: number;
  /** Whether the match needed curly quotes folded to straight ones. */
  quoteFallback: boolean;
  /** Line of the first change in the new file (1-based). */
  startLine: number;
  /** Numbered lines around the first change, as shown to the model. */
  snippet: string;
  /** Unified diff of the whole change. */
  diff: string;
  /** How the file is stored (kept as found). */
  format: TextFormat;
}

/**
 * Edit's input.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { type EditInput, editTool } from "./edit.ts";
 * const input: EditInput = {
 *   file_path: "/w/a.ts",
 *   old_string: "let",
 *   new_string: "const",
 *   replace_all: true,
 * };
 * assert.ok(editTool.input.safeParse(input).success);
 * ```
 */
export interface EditInput {
  /** Absolute path of the file. */
  file_path: string;
  /** The exact text to replace. */
  old_string: string;
  /** The replacement. */
  new_string: string;
  /** Replace every occurrence. Default false. */
  replace_all?: boolean;
}

const input: z.ZodType<EditInput> = z.strictObject({
  file_path: z.string().describe("Absolute path of the file to edit"),
  old_string: z.string().describe(
    "The exact text to replace (empty to create a missing file or fill an empty one)",
  ),
  new_string: z.string().describe("The text to put in its place (must differ from old_string)"),
  replace_all: z.boolean().optional().describe(
    "Replace every occurrence instead of exactly one. Default false",
  ),
});

/**
 * The Edit tool.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { runTool, Session, ToolRegistry } from "../../mod.ts";
 * import { readTool } from "./read/read.ts";
 * import { editTool } from "./edit.ts";
 * const dir = await Deno.realPath(await Deno.makeTempDir());
 * const file = `${dir}/hello.ts`;
 * await Deno.writeTextFile(file, 'console.log("hello, world");\n');
 * await using session = new Session({ roots: [dir] });
 * const registry = new ToolRegistry([readTool, editTool]);
 * await runTool(registry, { name: "Read", input: { file_path: file } }, { session });
 * const r = await runTool(registry, {
 *   name: "Edit",
 *   input: { file_path: file, old_string: "world", new_string: "Deno" },
 * }, { session, approver: () => Promise.resolve(true) });
 * assert.ok(r.ok);
 * assert.equal(await Deno.readTextFile(file), 'console.log("hello, Deno");\n');
 * await Deno.remove(dir, { recursive: true });
 * ```
 */
export const editTool: Tool<EditInput, EditData> = defineTool<EditInput, EditData>({
  name: "Edit",
  description:
    "Replaces exact text in a file. `old_string` must occur exactly once (add surrounding lines to " +
    "make it unique) unless `replace_all` is true. Read the file first in this session; keep its " +
    "indentation exactly. An empty `old_string` on a missing file creates it. For notebooks use NotebookEdit.",
  sideEffect: "Mutating",
  input,
  summarize: (i) => i.file_path,
  execute: async (i, ctx) => {
    const safe = resolveSafePath(i.file_path, ctx, { mustExist: false });
    const shown = safe.requested;
    if (extname(shown).toLowerCase() === ".ipynb") {
      throw new InvalidInputError(`"${shown}" is a Jupyter notebook: use NotebookEdit to change its cells`);
    }
    if (i.old_string === i.new_string || (i.old_string !== "" && toLf(i.old_string) === toLf(i.new_string))) {
      throw new InvalidInputError("old_string and new_string are identical: there is nothing to change");
    }
    return await withFileLock(safe.real, async () => {
      let bytes: Uint8Array | undefined;
      try {
        using file = openFileInside(safe.real);
        const info = await file.stat();
        assertWritable(info, shown);
        if (info.size > MAX_EDIT_RESULT_CHARS * 4) throw tooLarge(shown, info.size);
        bytes = await file.readAll(ctx.signal);
        await assertFresh(ctx.session, safe.real, shown, info, bytes, "edit");
      } catch (err) {
        if (!(err instanceof Deno.errors.NotFound)) throw err;
      }
      if (!bytes && i.old_string !== "") {
        throw new NotFoundError(
          `File does not exist: "${shown}": to create it, use Write, or Edit with an empty old_string`,
        );
      }
      const decoded = bytes
        ? decodeText(bytes)
        : { text: "", format: { encoding: "utf-8", bom: false, lineEnding: "LF" } as TextFormat };
      const { format } = decoded;
      const crlf = format.lineEnding === "CRLF";
      const before = crlf ? toLf(decoded.text) : decoded.text;
      let result: Replaced;
      if (i.old_string === "") {
        if (before !== "") {
          throw new InvalidInputError(
            `"${shown}" is not empty: old_string must give the text to replace; use Write to replace the whole file`,
          );
        }
        result = {
          text: toLfIf(crlf, i.new_string),
          count: 1,
          firstIndex: 0,
          firstLength: i.new_string.length,
          fallback: false,
        };
      } else {
        // old and new are matched and written with LF whatever the file uses (CRLF files get
        // their CRLF back below); mixed endings: match on LF-normalised text, keep each line's ending
        const mixed = !crlf && before.includes("\r\n");
        result = replace(
          before,
          toLf(i.old_string),
          toLf(i.new_string),
          i.replace_all ?? false,
          shown,
          mixed,
        );
      }
      const out = encodeText(crlf ? withLineEnding(result.text, "CRLF") : result.text, format);
      await atomicWriteFile(safe.real, out, { signal: ctx.signal, createParents: true });
      await recordWrite(ctx.session, safe.real, out);
      const { snippet, startLine } = snippetAround(result.text, result.firstIndex, result.firstLength);
      const diff = await unifiedDiff(toLf(before), toLf(result.text), shown);
      const what = bytes ? `Edited "${shown}"` : `Created "${shown}"`;
      const count = result.count > 1 ? ` (${result.count} replacements)` : "";
      const note = result.fallback
        ? " (matched after folding curly quotes; the file's quotes were kept)"
        : "";
      return {
        text: `${what}${count}${note}:\n${snippet}`,
        data: {
          filePath: shown,
          created: !bytes,
          replacements: result.count,
          quoteFallback: result.fallback,
          startLine,
          snippet,
          diff,
          format,
        },
      };
    });
  },
});

interface Replaced {
  text: string;
  count: number;
  firstIndex: number;
  firstLength: number;
  fallback: boolean;
}

function toLfIf(yes: boolean, s: string): string {
  return yes ? toLf(s) : s;
}

const foldQuotes = (s: string) => s.replace(/[\u2018\u2019]/g, "'").replace(/[\u201C\u201D]/g, '"');

/**
 * Replaces `old` in `text`; on no exact match, retries with curly quotes folded
 * to straight ones. With `mixed` (a file of LF and CRLF lines), `old` and `next`
 * are LF and the text found keeps its own line endings.
 */
function replace(
  text: string,
  old: string,
  next: string,
  all: boolean,
  shown: string,
  mixed = false,
): Replaced {
  let at = findText(text, old, mixed);
  let fallback = false;
  if (at.length === 0) {
    at = findText(foldQuotes(text), foldQuotes(old), mixed);
    fallback = at.length > 0;
  }
  if (at.length === 0) {
    throw new InvalidInputError(
      `old_string was not found in "${shown}": Read the file again and copy the text exactly, including whitespace and indentation`,
    );
  }
  if (at.length > 1 && !all) {
    throw new InvalidInputError(
      `old_string occurs ${at.length} times in "${shown}": include more surrounding lines to make it unique, or set replace_all to true to change all ${at.length}`,
    );
  }
  // the result's length from counts, before any of it is built (a mixed file may add a \r per line)
  const perMatch = next.length + (mixed ? next.split("\n").length - 1 : 0);
  const found = at.reduce((sum, [, len]) => sum + len, 0);
  const resultLength = text.length - found + at.length * perMatch;
  if (resultLength > MAX_EDIT_RESULT_CHARS) throw tooLarge(shown, resultLength, at.length);
  let out = "", prev = 0, firstLength = 0;
  for (const [k, [idx, len]] of at.entries()) {
    const found = text.slice(idx, idx + len);
    let replacement = fallback ? curlLike(found, next) : next;
    if (mixed) replacement = withLineEnding(replacement, lineEndingAt(text, idx, len));
    if (k === 0) firstLength = replacement.length;
    out += text.slice(prev, idx) + replacement;
    prev = idx + len;
  }
  out += text.slice(prev);
  return { text: out, count: at.length, firstIndex: at[0][0], firstLength, fallback };
}

function tooLarge(shown: string, size: number, count?: number): InvalidInputError {
  const mib = (n: number) => `${(n / (1024 * 1024)).toFixed(1)} MiB`;
  const what = count === undefined
    ? `the file is ${mib(size)}`
    : `the result of ${count} replacement${count === 1 ? "" : "s"} would be ${mib(size)}`;
  const limit = mib(MAX_EDIT_RESULT_CHARS);
  return new InvalidInputError(
    `Cannot edit "${shown}": ${what}, over the ${limit} limit: make a smaller change, or use Bash (sed) for bulk rewrites`,
  );
}

/** Gives `next` the curly quotes that `found` uses (straight ones become left or right by position). */
function curlLike(found: string, next: string): string {
  const singles = /[\u2018\u2019]/.test(found), doubles = /[\u201C\u201D]/.test(found);
  return next.replace(/['"]/g, (q, i: number) => {
    const opening = i === 0 || /[\s([{\u2014-]/.test(next[i - 1]);
    if (q === "'" && singles) return opening ? "\u2018" : "\u2019";
    if (q === '"' && doubles) return opening ? "\u201C" : "\u201D";
    return q;
  });
}

/** Numbered lines around `[index, index+length)` of `text` (LF). */
function snippetAround(text: string, index: number, length: number): { snippet: string; startLine: number } {
  let line = 1;
  for (let i = text.indexOf("\n"); i >= 0 && i < index; i = text.indexOf("\n", i + 1)) line++;
  const changed = Math.max(1, text.slice(index, index + length).split("\n").length);
  const from = Math.max(1, line - SNIPPET_CONTEXT_LINES);
  const lineStart = nthLineStart(text, from);
  const wanted = Math.min(MAX_SNIPPET_LINES, line - from + changed + SNIPPET_CONTEXT_LINES);
  const lines: string[] = [];
  let pos = lineStart;
  while (lines.length < wanted && pos <= text.length) {
    const nl = text.indexOf("\n", pos);
    const end = nl < 0 ? text.length : nl;
    if (nl < 0 && pos === text.length && lines.length > 0) break;
    lines.push(numberLine(from + lines.length, text.slice(pos, end).replace(/\r$/, "")));
    if (nl < 0) break;
    pos = nl + 1;
  }
  return { snippet: lines.join("\n"), startLine: line };
}

function nthLineStart(text: string, n: number): number {
  let pos = 0;
  for (let k = 1; k < n; k++) pos = text.indexOf("\n", pos) + 1;
  return pos;
}

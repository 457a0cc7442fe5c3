/**
 * Read: numbered lines of a text file (streamed, so a window of a huge file
 * costs only the window), images as image content, PDFs as text per page,
 * notebooks as cells. Every read is recorded for the read-before-write check.
 *
 * @module
 */
import { extname } from "node:path";
import { z } from "zod";
import { InvalidInputError } from "../../errors.ts";
import { defineTool, type Tool, type ToolContext, type ToolOutput } from "../../tool/define_tool.ts";
import { IMAGE_EXTENSIONS } from "./image.ts";
import { countLines, fileChunks, takeLineWindow } from "./line_window.ts";
import { resolveSafePath } from "../../session/workspace.ts";
import { openFileInside } from "../../files/safe_fs.ts";
import {
  MAX_PDF_PAGES_PER_CALL,
  PDF_PAGES_WITHOUT_RANGE,
  readAll,
  readImage,
  type ReadImageData,
  readNotebook,
  type ReadNotebookData,
  readPdf,
  type ReadPdfData,
} from "./media.ts";
import { recordRead } from "../../files/read_state.ts";
import {
  detectEncoding,
  looksBinary,
  numberLines,
  sha256Hex,
  SNIFF_BYTES,
  type TextEncodingName,
} from "../../files/text.ts";

export type { ReadImageData, ReadNotebookData, ReadPdfData };

/** Lines returned when no `limit` is given. */
export const DEFAULT_READ_LIMIT = 2000;
/** Files up to this size are loaded whole (and hashed); larger ones are streamed. */
export const FULL_LOAD_BYTES: number = 16 * 1024 * 1024;

/**
 * Structured result of a text read.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { runTool, Session, ToolRegistry } from "../../../mod.ts";
 * import { type ReadTextData, readTool } from "./read.ts";
 * const dir = await Deno.realPath(await Deno.makeTempDir());
 * await Deno.writeTextFile(`${dir}/a.txt`, "one\ntwo\nthree\n");
 * await using session = new Session({ roots: [dir] });
 * const r = await runTool(new ToolRegistry([readTool]), {
 *   name: "Read",
 *   input: { file_path: `${dir}/a.txt`, offset: 2, limit: 1 },
 * }, { session });
 * const data = r.data as ReadTextData;
 * assert.equal(data.kind, "text");
 * assert.equal(data.startLine, 2);
 * assert.equal(data.numLines, 1);
 * await Deno.remove(dir, { recursive: true });
 * ```
 */
export interface ReadTextData {
  /** Discriminator. */
  kind: "text";
  /** The path read (as given, normalised). */
  filePath: string;
  /** The lines shown, without numbers. */
  content: string;
  /** First line shown (1-based). */
  startLine: number;
  /** Number of lines shown. */
  numLines: number;
  /** Lines in the file, when the read reached the end. */
  totalLines?: number;
  /** Offset to continue from, when lines follow. */
  nextOffset?: number;
  /** Encoding of the file. */
  encoding: TextEncodingName;
  /** Whether lines in the window end with CRLF. */
  crlf: boolean;
  /** A warning instead of content (empty file, offset past the end). */
  warning?: string;
}
/**
 * Structured result of Read, by kind.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import type { ReadData } from "./read.ts";
 * const describe = (data: ReadData): string => {
 *   switch (data.kind) {
 *     case "text":
 *       return `${data.numLines} lines`;
 *     case "image":
 *       return data.mediaType;
 *     case "pdf":
 *       return `${data.pageCount} pages`;
 *     case "notebook":
 *       return `${data.cells.length} cells`;
 *   }
 * };
 * assert.equal(describe({ kind: "pdf", filePath: "/w/a.pdf", pageCount: 3, pages: [] }), "3 pages");
 * ```
 */
export type ReadData = ReadTextData | ReadImageData | ReadPdfData | ReadNotebookData;

/**
 * Read's input.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { type ReadInput, readTool } from "./read.ts";
 * const input: ReadInput = { file_path: "/w/big.log", offset: 2001, limit: 500 };
 * assert.ok(readTool.input.safeParse(input).success);
 * assert.ok(!readTool.input.safeParse({ path: "/w/big.log" }).success);
 * ```
 */
export interface ReadInput {
  /** Absolute path of the file. */
  file_path: string;
  /** First line (1-based; 0 means 1). */
  offset?: number;
  /** Most lines to return. */
  limit?: number;
  /** PDF page or range, "3" or "1-5". */
  pages?: string;
}

const input: z.ZodType<ReadInput> = z.strictObject({
  file_path: z.string().describe("Absolute path of the file to read"),
  offset: z.number().int().min(0).optional().describe(
    "Line number to start from (1-based; 0 means 1). Default 1",
  ),
  limit: z.number().int().min(1).optional().describe(`Most lines to return. Default ${DEFAULT_READ_LIMIT}`),
  pages: z.string().optional().describe(
    `PDF only: a page ("3") or a range ("1-5"), at most ${MAX_PDF_PAGES_PER_CALL} pages. Needed for PDFs over ${PDF_PAGES_WITHOUT_RANGE} pages`,
  ),
});

/**
 * The Read tool.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { runTool, Session, ToolRegistry } from "../../../mod.ts";
 * import { readTool } from "./read.ts";
 * const dir = await Deno.realPath(await Deno.makeTempDir());
 * await Deno.writeTextFile(`${dir}/a.txt`, "one\ntwo\n");
 * await using session = new Session({ roots: [dir] });
 * const r = await runTool(new ToolRegistry([readTool]), {
 *   name: "Read",
 *   input: { file_path: `${dir}/a.txt` },
 * }, { session });
 * assert.ok(r.ok);
 * assert.match(r.text, /two/);
 * await Deno.remove(dir, { recursive: true });
 * ```
 */
export const readTool: Tool<ReadInput, ReadData> = defineTool<ReadInput, ReadData>({
  name: "Read",
  description: "Reads a file from the workspace. Text comes back as numbered lines (`offset`/`limit` page " +
    "through long files); images (png, jpg, gif, webp) as images; PDFs as text per page (`pages` picks a " +
    "range); Jupyter notebooks as cells with their outputs. Use an absolute path. Read a file before " +
    "editing or overwriting it.",
  sideEffect: "ReadOnly",
  input,
  summarize: (i) => i.file_path,
  execute: async (i, ctx) => {
    const safe = resolveSafePath(i.file_path, ctx);
    const ext = extname(safe.requested).slice(1).toLowerCase();
    if (i.pages !== undefined && ext !== "pdf") {
      throw new InvalidInputError(
        `"pages" is for PDF files only: use offset and limit for "${safe.requested}"`,
      );
    }
    if (IMAGE_EXTENSIONS.includes(ext)) {
      const out = await readImage(safe.real, safe.requested, ctx);
      if (out) return out;
    }
    if (ext === "pdf") return await readPdf(safe.real, safe.requested, i.pages, ctx);
    if (ext === "ipynb") return await readNotebook(safe.real, safe.requested, ctx);
    return await readText(safe.real, safe.requested, i.offset, i.limit, ctx);
  },
});

async function readText(
  real: string,
  shown: string,
  offsetIn: number | undefined,
  limitIn: number | undefined,
  ctx: ToolContext,
): Promise<ToolOutput<ReadData>> {
  const offset = Math.max(1, offsetIn ?? 1), limit = limitIn ?? DEFAULT_READ_LIMIT;
  using file = openFileInside(real);
  const info = await file.stat();
  const small = info.size <= FULL_LOAD_BYTES;
  const whole = small ? await readAll(file, ctx.signal) : undefined;
  const chunks = whole ? single(whole) : fileChunks(file);
  const first = await chunks.next();
  const head: Uint8Array = first.done ? new Uint8Array(0) : first.value.slice(0, SNIFF_BYTES);
  if (looksBinary(head)) {
    throw new InvalidInputError(
      `"${shown}" looks like a binary file (NUL bytes in its first ${SNIFF_BYTES} bytes): refused; use Bash (e.g. "file" or "xxd | head") to inspect it`,
    );
  }
  const { encoding, bomLength } = detectEncoding(head);
  const w = await takeLineWindow(
    prepend(first.done ? undefined : first.value, chunks),
    { offset, limit, encoding, skip: bomLength, signal: ctx.signal },
  );
  if (whole && w.totalLines === undefined) w.totalLines = countLines(whole, encoding, bomLength);
  recordRead(ctx.session, real, {
    mtimeMs: info.mtime?.getTime() ?? null,
    size: whole?.length ?? info.size,
    hash: whole ? await sha256Hex(whole) : undefined,
    whole: offset === 1 && !w.hasMore && w.cutLines === 0,
  });
  const base = { kind: "text" as const, filePath: shown, startLine: offset, encoding, crlf: w.sawCrlf };
  if (w.lines.length === 0) {
    const warning = w.totalLines === 0
      ? `Warning: "${shown}" exists but is empty`
      : `Warning: "${shown}" has ${w.totalLines} lines: offset ${offset} is past the end; use an offset from 1 to ${w.totalLines}`;
    return { text: warning, data: { ...base, content: "", numLines: 0, totalLines: w.totalLines, warning } };
  }
  const end = offset + w.lines.length - 1;
  let text = numberLines(w.lines, offset);
  if (w.hasMore) {
    const of = w.totalLines ? ` of ${w.totalLines}` : "";
    text += `\n\n(Showing lines ${offset}-${end}${of}; the file goes on: use offset=${end + 1} to read on)`;
  }
  return {
    text,
    data: {
      ...base,
      content: w.lines.join("\n"),
      numLines: w.lines.length,
      totalLines: w.totalLines,
      ...(w.hasMore ? { nextOffset: end + 1 } : {}),
    },
  };
}

async function* single(bytes: Uint8Array): AsyncGenerator<Uint8Array> {
  yield bytes;
}

async function* prepend(
  first: Uint8Array | undefined,
  rest: AsyncIterator<Uint8Array>,
): AsyncGenerator<Uint8Array> {
  if (first) yield first;
  for (;;) {
    const r = await rest.next();
    if (r.done) return;
    yield r.value;
  }
}

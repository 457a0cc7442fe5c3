/**
 * Read: numbered lines of a text file (streamed, so a window of a huge file
 * costs only the window), images as image content, PDFs as text per page,
 * notebooks as cells. Every read is recorded for the read-before-write check.
 *
 * @module
 */
import { extname } from "node:path";
import { z } from "zod";
import { InvalidInputError } from "../errors.ts";
import { defineTool, type Tool, type ToolContext, type ToolOutput } from "../registry/define_tool.ts";
import { IMAGE_EXTENSIONS, sniffImage } from "./_shared/image.ts";
import { fileChunks, takeLineWindow } from "./_shared/line_window.ts";
import { parseNotebook, type RenderedCell, renderNotebook } from "./_shared/notebook.ts";
import { resolveSafePath } from "./_shared/paths.ts";
import { extractPdfPages, type PdfPageText } from "./_shared/pdf.ts";
import { recordRead } from "./_shared/read_state.ts";
import {
  decodeText,
  detectEncoding,
  looksBinary,
  numberLines,
  sha256Hex,
  SNIFF_BYTES,
  type TextEncodingName,
} from "./_shared/text.ts";

/** Lines returned when no `limit` is given. */
export const DEFAULT_READ_LIMIT = 2000;
/** Files up to this size are loaded whole (and hashed); larger ones are streamed. */
export const FULL_LOAD_BYTES: number = 16 * 1024 * 1024;
/** Largest image returned as image content (bytes). */
export const MAX_IMAGE_BYTES: number = 5 * 1024 * 1024;
/** Largest PDF read (bytes). */
export const MAX_PDF_BYTES: number = 32 * 1024 * 1024;
/** Most PDF pages one call returns. */
export const MAX_PDF_PAGES_PER_CALL = 20;
/** PDFs with more pages than this need `pages`. */
export const PDF_PAGES_WITHOUT_RANGE = 10;

/** Structured result of a text read. */
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
/** Structured result of an image read. */
export interface ReadImageData {
  /** Discriminator. */
  kind: "image";
  /** The path read. */
  filePath: string;
  /** Media type. */
  mediaType: string;
  /** Size in bytes. */
  size: number;
  /** Width in pixels, when cheap to know. */
  width?: number;
  /** Height in pixels, when cheap to know. */
  height?: number;
}
/** Structured result of a PDF read. */
export interface ReadPdfData {
  /** Discriminator. */
  kind: "pdf";
  /** The path read. */
  filePath: string;
  /** Pages in the document. */
  pageCount: number;
  /** The pages returned. */
  pages: PdfPageText[];
}
/** Structured result of a notebook read. */
export interface ReadNotebookData {
  /** Discriminator. */
  kind: "notebook";
  /** The path read. */
  filePath: string;
  /** The cells. */
  cells: RenderedCell[];
}
/** Structured result of Read, by kind. */
export type ReadData = ReadTextData | ReadImageData | ReadPdfData | ReadNotebookData;

const input = z.strictObject({
  file_path: z.string().describe("Absolute path of the file to read"),
  offset: z.number().int().min(0).optional().describe(
    "Line number to start from (1-based; 0 means 1). Default 1",
  ),
  limit: z.number().int().min(1).optional().describe(`Most lines to return. Default ${DEFAULT_READ_LIMIT}`),
  pages: z.string().optional().describe(
    `PDF only: a page ("3") or a range ("1-5"), at most ${MAX_PDF_PAGES_PER_CALL} pages. Needed for PDFs over ${PDF_PAGES_WITHOUT_RANGE} pages`,
  ),
});

/** Read's input. */
export type ReadInput = z.infer<typeof input>;

/** The Read tool. */
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

async function loadWhole(real: string, max: number, what: string, shown: string, ctx: ToolContext) {
  using file = await Deno.open(real, { read: true });
  const info = await file.stat();
  if (info.size > max) {
    throw new InvalidInputError(
      `${what} "${shown}" is ${info.size} bytes: the limit is ${max}; use Bash to shrink or split it first`,
    );
  }
  const bytes = await readAll(file, ctx.signal);
  const hash = await sha256Hex(bytes);
  recordRead(ctx.session, real, {
    mtimeMs: info.mtime?.getTime() ?? null,
    size: bytes.length,
    hash,
    whole: true,
  });
  return bytes;
}

async function readImage(
  real: string,
  shown: string,
  ctx: ToolContext,
): Promise<ToolOutput<ReadData> | undefined> {
  const bytes = await loadWhole(real, MAX_IMAGE_BYTES, "Image", shown, ctx);
  const info = sniffImage(bytes);
  if (!info) return undefined; // not really an image: let the text path judge it
  const dims = info.width && info.height ? `, ${info.width}×${info.height}` : "";
  return {
    text: `Image "${shown}" (${info.mediaType}${dims}, ${bytes.length} bytes)`,
    images: [{ data: toBase64(bytes), mediaType: info.mediaType }],
    data: {
      kind: "image",
      filePath: shown,
      mediaType: info.mediaType,
      size: bytes.length,
      width: info.width,
      height: info.height,
    },
  };
}

/** Parses `pages` ("3" or "1-5") into an inclusive range. */
export function parsePageRange(pages: string): { first: number; last: number } {
  const m = /^\s*(\d+)\s*(?:-\s*(\d+)\s*)?$/.exec(pages);
  const first = m ? Number(m[1]) : NaN, last = m ? Number(m[2] ?? m[1]) : NaN;
  if (!m || first < 1 || last < first) {
    throw new InvalidInputError(
      `"pages" must be a page like "3" or a range like "1-5" (from 1 up), got "${pages}"`,
    );
  }
  if (last - first + 1 > MAX_PDF_PAGES_PER_CALL) {
    throw new InvalidInputError(
      `"pages" asks for ${last - first + 1} pages: at most ${MAX_PDF_PAGES_PER_CALL} a call, e.g. "${first}-${
        first + MAX_PDF_PAGES_PER_CALL - 1
      }"`,
    );
  }
  return { first, last };
}

async function readPdf(
  real: string,
  shown: string,
  pages: string | undefined,
  ctx: ToolContext,
): Promise<ToolOutput<ReadData>> {
  const range = pages === undefined ? { first: 1, last: PDF_PAGES_WITHOUT_RANGE } : parsePageRange(pages);
  const bytes = await loadWhole(real, MAX_PDF_BYTES, "PDF", shown, ctx);
  const pdf = await extractPdfPages(bytes, { ...range, signal: ctx.signal });
  if (pages === undefined && pdf.pageCount > PDF_PAGES_WITHOUT_RANGE) {
    throw new InvalidInputError(
      `"${shown}" has ${pdf.pageCount} pages: give "pages", e.g. pages="1-${PDF_PAGES_WITHOUT_RANGE}" (at most ${MAX_PDF_PAGES_PER_CALL} a call)`,
    );
  }
  if (range.first > pdf.pageCount) {
    throw new InvalidInputError(
      `"${shown}" has ${pdf.pageCount} pages: "pages" must be within 1-${pdf.pageCount}`,
    );
  }
  const shownLast = pdf.pages.at(-1)?.page ?? range.first;
  const body = pdf.pages.map((p) => `--- Page ${p.page} ---\n${p.text || "(no text on this page)"}`).join(
    "\n\n",
  );
  return {
    text: `PDF "${shown}": pages ${range.first}-${shownLast} of ${pdf.pageCount}\n\n${body}`,
    data: { kind: "pdf", filePath: shown, pageCount: pdf.pageCount, pages: pdf.pages },
  };
}

async function readNotebook(real: string, shown: string, ctx: ToolContext): Promise<ToolOutput<ReadData>> {
  const bytes = await loadWhole(real, FULL_LOAD_BYTES * 4, "Notebook", shown, ctx);
  const nb = parseNotebook(decodeText(bytes).text, shown);
  const r = renderNotebook(nb);
  return {
    text: r.cells.length ? r.text : `Warning: notebook "${shown}" has no cells`,
    data: { kind: "notebook", filePath: shown, cells: r.cells },
    ...(r.images.length ? { images: r.images } : {}),
  };
}

async function readText(
  real: string,
  shown: string,
  offsetIn: number | undefined,
  limitIn: number | undefined,
  ctx: ToolContext,
): Promise<ToolOutput<ReadData>> {
  const offset = Math.max(1, offsetIn ?? 1), limit = limitIn ?? DEFAULT_READ_LIMIT;
  using file = await Deno.open(real, { read: true });
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

/** Reads a whole open file. */
export async function readAll(file: Deno.FsFile, signal?: AbortSignal): Promise<Uint8Array> {
  const parts: Uint8Array[] = [];
  let total = 0;
  for await (const chunk of fileChunks(file, 1 << 20)) {
    signal?.throwIfAborted();
    parts.push(chunk.slice());
    total += chunk.length;
  }
  const out = new Uint8Array(total);
  let o = 0;
  for (const p of parts) {
    out.set(p, o);
    o += p.length;
  }
  return out;
}

function toBase64(bytes: Uint8Array): string {
  let s = "";
  for (let i = 0; i < bytes.length; i += 0x8000) s += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return btoa(s);
}

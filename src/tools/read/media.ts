/**
 * The non-text kinds Read handles: images (base64 plus dimensions), PDFs
 * (text per page) and notebooks (cells with outputs). Each load is recorded
 * for the read-before-write check.
 *
 * @module
 */
import { InvalidInputError } from "../../errors.ts";
import type { ToolContext, ToolOutput } from "../../tool/define_tool.ts";
import { claimedImageFormat, sniffImage } from "./image.ts";
import { parseNotebook, type RenderedCell, renderNotebook } from "../../files/notebook.ts";
import { extractPdfPages, type PdfPageText } from "../../files/pdf.ts";
import { recordRead } from "../../files/read_state.ts";
import { openFileInside, readAll } from "../../files/safe_fs.ts";

export { readAll } from "../../files/safe_fs.ts";
import { decodeText, sha256Hex } from "../../files/text.ts";

/** Largest image returned as image content (bytes). */
export const MAX_IMAGE_BYTES: number = 5 * 1024 * 1024;
/** Largest PDF read (bytes). */
export const MAX_PDF_BYTES: number = 32 * 1024 * 1024;
/** Most PDF pages one call returns. */
export const MAX_PDF_PAGES_PER_CALL = 20;
/** PDFs with more pages than this need `pages`. */
export const PDF_PAGES_WITHOUT_RANGE = 10;
/** Largest notebook read (bytes). */
export const MAX_NOTEBOOK_BYTES: number = 64 * 1024 * 1024;

/**
 * Structured result of an image read.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { runTool, Session, ToolRegistry } from "../../../mod.ts";
 * import type { ReadImageData } from "./media.ts";
 * import { readTool } from "./read.ts";
 * const dir = await Deno.realPath(await Deno.makeTempDir());
 * const png =
 *   "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==";
 * await Deno.writeFile(`${dir}/dot.png`, Uint8Array.from(atob(png), (c) => c.charCodeAt(0)));
 * await using session = new Session({ roots: [dir] });
 * const r = await runTool(new ToolRegistry([readTool]), {
 *   name: "Read",
 *   input: { file_path: `${dir}/dot.png` },
 * }, { session });
 * const data = r.data as ReadImageData;
 * assert.equal(data.mediaType, "image/png");
 * assert.equal(data.width, 1);
 * await Deno.remove(dir, { recursive: true });
 * ```
 */
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
/**
 * Structured result of a PDF read.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import type { ReadPdfData } from "./media.ts";
 * const data: ReadPdfData = {
 *   kind: "pdf",
 *   filePath: "/w/a.pdf",
 *   pageCount: 2,
 *   pages: [{ page: 1, text: "Intro" }],
 * };
 * assert.equal(data.pages.map((p) => p.text).join("\n"), "Intro");
 * ```
 */
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
/**
 * Structured result of a notebook read.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { runTool, Session, ToolRegistry } from "../../../mod.ts";
 * import type { ReadNotebookData } from "./media.ts";
 * import { readTool } from "./read.ts";
 * const dir = await Deno.realPath(await Deno.makeTempDir());
 * const cell = { cell_type: "markdown", id: "m1", metadata: {}, source: ["# Title"] };
 * await Deno.writeTextFile(
 *   `${dir}/a.ipynb`,
 *   JSON.stringify({ cells: [cell], metadata: {}, nbformat: 4, nbformat_minor: 5 }),
 * );
 * await using session = new Session({ roots: [dir] });
 * const r = await runTool(new ToolRegistry([readTool]), {
 *   name: "Read",
 *   input: { file_path: `${dir}/a.ipynb` },
 * }, { session });
 * assert.equal((r.data as ReadNotebookData).cells.length, 1);
 * await Deno.remove(dir, { recursive: true });
 * ```
 */
export interface ReadNotebookData {
  /** Discriminator. */
  kind: "notebook";
  /** The path read. */
  filePath: string;
  /** The cells. */
  cells: RenderedCell[];
}
async function loadWhole(real: string, max: number, what: string, shown: string, ctx: ToolContext) {
  using file = openFileInside(real);
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

function isText(bytes: Uint8Array): boolean {
  if (bytes.indexOf(0) !== -1) return false;
  try {
    new TextDecoder("utf-8", { fatal: true }).decode(bytes);
    return true;
  } catch {
    return false;
  }
}

export async function readImage(
  real: string,
  shown: string,
  ctx: ToolContext,
): Promise<ToolOutput<ReadImageData> | undefined> {
  const bytes = await loadWhole(real, MAX_IMAGE_BYTES, "Image", shown, ctx);
  const info = sniffImage(bytes);
  if (!info || !info.width || !info.height) {
    // never lines of raw bytes: a file that claims to be an image and is not one is an error; only
    // text named like an image (a Git LFS pointer, say) is left to the text path
    const claimed = claimedImageFormat(bytes);
    if (claimed) {
      throw new InvalidInputError(
        `Cannot read "${shown}" as an image: its ${claimed} header is damaged or cut short (${bytes.length} bytes)`,
      );
    }
    if (isText(bytes)) return undefined;
    throw new InvalidInputError(
      `Cannot read "${shown}" as an image: it is not a PNG, JPEG, GIF or WebP file, nor text`,
    );
  }
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

export async function readPdf(
  real: string,
  shown: string,
  pages: string | undefined,
  ctx: ToolContext,
): Promise<ToolOutput<ReadPdfData>> {
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

export async function readNotebook(
  real: string,
  shown: string,
  ctx: ToolContext,
): Promise<ToolOutput<ReadNotebookData>> {
  const bytes = await loadWhole(real, MAX_NOTEBOOK_BYTES, "Notebook", shown, ctx);
  const nb = parseNotebook(decodeText(bytes).text, shown);
  const r = renderNotebook(nb);
  return {
    text: r.cells.length ? r.text : `Warning: notebook "${shown}" has no cells`,
    data: { kind: "notebook", filePath: shown, cells: r.cells },
    ...(r.images.length ? { images: r.images } : {}),
  };
}

function toBase64(bytes: Uint8Array): string {
  let s = "";
  for (let i = 0; i < bytes.length; i += 0x8000) s += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return btoa(s);
}

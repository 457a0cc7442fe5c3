/**
 * PDF text extraction with pdfjs-dist (legacy build, no worker thread, no
 * permission beyond reading the module files). Used by Read and WebFetch.
 *
 * @module
 */
import { AbortedError, InvalidInputError } from "../errors.ts";

/**
 * The options {@link extractPdfPages} takes.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import type { ExtractPdfOptions } from "./pdf.ts";
 * const firstTwoPages: ExtractPdfOptions = { first: 1, last: 2 };
 * assert.equal(firstTwoPages.last, 2);
 * ```
 */
export interface ExtractPdfOptions {
  /** First page to extract (1-based, inclusive). Default 1. */
  first?: number;
  /** Last page to extract (1-based, inclusive). Default the last page. */
  last?: number;
  /** Stops the extraction between pages. */
  signal?: AbortSignal;
}

/**
 * The text of one page.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import type { PdfPageText } from "./pdf.ts";
 * const pages: PdfPageText[] = [{ page: 1, text: "Intro" }, { page: 2, text: "Method" }];
 * assert.equal(
 *   pages.map((p) => `--- page ${p.page}\n${p.text}`).join("\n"),
 *   "--- page 1\nIntro\n--- page 2\nMethod",
 * );
 * ```
 */
export interface PdfPageText {
  /** Page number, 1-based. */
  page: number;
  /** The page's text, lines joined with `\n`. */
  text: string;
}

/**
 * What {@link extractPdfPages} returns.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import type { PdfExtraction } from "./pdf.ts";
 * const extraction: PdfExtraction = { pageCount: 10, pages: [{ page: 1, text: "Intro" }] };
 * assert.ok(extraction.pages.length < extraction.pageCount);
 * ```
 */
export interface PdfExtraction {
  /** Number of pages in the whole document. */
  pageCount: number;
  /** The pages asked for, in order. */
  pages: PdfPageText[];
}

// deno-lint-ignore no-explicit-any
type PdfJs = any;
let pdfjsPromise: Promise<PdfJs> | undefined;

/**
 * Loads pdfjs once. The worker module is loaded in-process and handed to
 * pdfjs as `globalThis.pdfjsWorker`, which is how pdfjs runs without a
 * worker thread; the canvas polyfill warnings it prints on import concern
 * rendering only, which we never do, so they are filtered out.
 */
function loadPdfJs(): Promise<PdfJs> {
  pdfjsPromise ??= (async () => {
    const warn = console.warn;
    console.warn = (...args: unknown[]) => {
      const first = String(args[0] ?? "");
      if (/^Warning: Cannot (load "@napi-rs\/canvas"|polyfill|access the `require`)/.test(first)) return;
      warn(...args);
    };
    try {
      const [lib, worker] = await Promise.all([
        import("pdfjs-dist/legacy/build/pdf.mjs"),
        import("pdfjs-dist/legacy/build/pdf.worker.mjs"),
      ]);
      const g = globalThis as { pdfjsWorker?: unknown };
      g.pdfjsWorker ??= worker;
      return lib;
    } finally {
      console.warn = warn;
    }
  })();
  return pdfjsPromise;
}

/**
 * Extracts the text of a PDF, page by page, for pages `first` to `last`
 * (1-based, inclusive; clamped to the document).
 *
 * @example
 * ```ts ignore
 * import { extractPdfPages } from "./pdf.ts";
 * const data = await Deno.readFile("/usr/share/doc/shared-mime-info/shared-mime-info-spec.pdf");
 * const { pageCount, pages } = await extractPdfPages(data, { first: 1, last: 2 });
 * console.log(pageCount, pages[0].text);
 * ```
 */
export async function extractPdfPages(
  data: Uint8Array,
  options: ExtractPdfOptions = {},
): Promise<PdfExtraction> {
  const { signal } = options;
  const checkAbort = () => {
    if (signal?.aborted) throw signal.reason ?? new AbortedError("The PDF extraction was aborted");
  };
  checkAbort();
  const pdfjs = await loadPdfJs();
  // pdfjs takes ownership of (and may detach) the buffer it is given: pass a copy
  const task = pdfjs.getDocument({
    data: data.slice(),
    isEvalSupported: false,
    disableFontFace: true,
    useSystemFonts: false,
    stopAtErrors: false,
    verbosity: 0,
  });
  const onAbort = () => void task.destroy();
  signal?.addEventListener("abort", onAbort, { once: true });
  try {
    let doc;
    try {
      doc = await task.promise;
    } catch (err) {
      checkAbort();
      const name = (err as Error)?.name ?? "";
      if (name === "PasswordException") {
        throw new InvalidInputError("The PDF is password-protected: its text cannot be extracted");
      }
      throw new InvalidInputError(`Not a readable PDF: ${(err as Error)?.message ?? String(err)}`);
    }
    const pageCount: number = doc.numPages;
    const first = Math.max(1, Math.floor(options.first ?? 1));
    const last = Math.min(pageCount, Math.floor(options.last ?? pageCount));
    const pages: PdfPageText[] = [];
    for (let n = first; n <= last; n++) {
      checkAbort();
      const page = await doc.getPage(n);
      const content = await page.getTextContent();
      pages.push({ page: n, text: joinTextItems(content.items) });
      page.cleanup();
    }
    return { pageCount, pages };
  } finally {
    signal?.removeEventListener("abort", onAbort);
    await task.destroy();
  }
}

/** Joins pdfjs text items: `hasEOL` ends a line; blank runs collapse. */
function joinTextItems(items: readonly { str?: string; hasEOL?: boolean }[]): string {
  let out = "";
  for (const item of items) {
    if (typeof item.str !== "string") continue;
    out += item.str;
    if (item.hasEOL) out += "\n";
  }
  return out
    .split("\n")
    .map((line) => line.trimEnd())
    .join("\n")
    .replace(/\n{3,}/g, "\n\n")
    .trim();
}

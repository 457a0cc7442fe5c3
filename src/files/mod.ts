/**
 * File helpers the built-in file tools share, for programs and custom tools
 * that want the same behaviour: atomic replacement, PDF text extraction, the
 * stored format of a text file (encoding, BOM, line ending), and the read
 * records that let Write and Edit refuse a file changed since it was read.
 *
 * @example Replace a file atomically
 * ```ts
 * import assert from "node:assert/strict";
 * import { atomicWriteFile } from "./mod.ts";
 * const dir = await Deno.makeTempDir();
 * await atomicWriteFile(`${dir}/notes.txt`, new TextEncoder().encode("hello"));
 * assert.equal(await Deno.readTextFile(`${dir}/notes.txt`), "hello");
 * await Deno.remove(dir, { recursive: true });
 * ```
 *
 * @module
 */
export { atomicWriteFile } from "./atomic_write.ts";
export type { AtomicWriteOptions } from "./atomic_write.ts";
export { extractPdfPages } from "./pdf.ts";
export type { ExtractPdfOptions, PdfExtraction, PdfPageText } from "./pdf.ts";
export type { LineEnding, TextEncodingName, TextFormat } from "./text.ts";
export { readRecords } from "./read_state.ts";
export type { ReadRecord } from "./read_state.ts";

/**
 * Text helpers for the file tools: encoding detection (UTF-8 with or without
 * BOM, UTF-16LE with BOM), line endings, binary sniffing, numbered lines.
 *
 * @module
 */

/**
 * Encodings the file tools read and write.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import type { TextEncodingName } from "./text.ts";
 * const encoding: TextEncodingName = "utf-16le";
 * assert.equal(new TextDecoder(encoding).decode(new Uint8Array([104, 0, 105, 0])), "hi");
 * ```
 */
export type TextEncodingName = "utf-8" | "utf-16le";

/**
 * Line endings as found in a file.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import type { LineEnding } from "./text.ts";
 * const breakOf = (ending: LineEnding): string => ending === "CRLF" ? "\r\n" : "\n";
 * assert.equal(["a", "b"].join(breakOf("CRLF")), "a\r\nb");
 * ```
 */
export type LineEnding = "LF" | "CRLF";

/**
 * How a file's text is stored, so a rewrite can keep it.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import type { TextFormat } from "./text.ts";
 * const windowsFile: TextFormat = { encoding: "utf-8", bom: true, lineEnding: "CRLF" };
 * assert.equal(windowsFile.lineEnding, "CRLF");
 * ```
 */
export interface TextFormat {
  /** Character encoding. */
  encoding: TextEncodingName;
  /** Whether the file starts with a byte order mark. */
  bom: boolean;
  /** The file's line ending: CRLF when every line break is CRLF, else LF. */
  lineEnding: LineEnding;
}

/** A decoded file. */
export interface DecodedText {
  /** The text exactly as stored (BOM removed, line endings untouched). */
  text: string;
  /** How it was stored. */
  format: TextFormat;
}

/** Bytes sniffed for NUL bytes to call a file binary. */
export const SNIFF_BYTES = 8192;
/** Longest line shown by Read before it is cut (characters). */
export const MAX_LINE_CHARS = 2000;

const UTF8_BOM = [0xef, 0xbb, 0xbf];

/**
 * Detects the encoding from the first bytes of a file.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { detectEncoding } from "./text.ts";
 * assert.equal(detectEncoding(new Uint8Array([0xff, 0xfe, 0x41, 0])).encoding, "utf-16le");
 * ```
 */
export function detectEncoding(
  head: Uint8Array,
): { encoding: TextEncodingName; bom: boolean; bomLength: number } {
  if (head.length >= 2 && head[0] === 0xff && head[1] === 0xfe) {
    return { encoding: "utf-16le", bom: true, bomLength: 2 };
  }
  if (head.length >= 3 && head[0] === UTF8_BOM[0] && head[1] === UTF8_BOM[1] && head[2] === UTF8_BOM[2]) {
    return { encoding: "utf-8", bom: true, bomLength: 3 };
  }
  return { encoding: "utf-8", bom: false, bomLength: 0 };
}

/**
 * True when the first block looks binary: it holds a NUL byte (UTF-16LE
 * files with a BOM are text, their NULs are half of each character).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { looksBinary } from "./text.ts";
 * assert.ok(looksBinary(new Uint8Array([0x50, 0x4b, 0, 0])));
 * assert.ok(!looksBinary(new TextEncoder().encode("plain text")));
 * ```
 */
export function looksBinary(head: Uint8Array): boolean {
  if (detectEncoding(head).encoding === "utf-16le") return false;
  const end = Math.min(head.length, SNIFF_BYTES);
  for (let i = 0; i < end; i++) if (head[i] === 0) return true;
  return false;
}

/** The dominant line ending of `text`: CRLF only when no lone LF exists. */
export function detectLineEnding(text: string): LineEnding {
  const crlf = text.split("\r\n").length - 1;
  if (crlf === 0) return "LF";
  const lf = text.split("\n").length - 1;
  return lf === crlf ? "CRLF" : "LF";
}

/**
 * Decodes a whole file, keeping how it was stored.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { decodeText, encodeText } from "./text.ts";
 * const bytes = new Uint8Array([0xef, 0xbb, 0xbf, 0x61, 0x0d, 0x0a]);
 * const d = decodeText(bytes);
 * assert.ok(d.text === "a\r\n" && d.format.bom && d.format.lineEnding === "CRLF");
 * assert.equal(encodeText(d.text, d.format).length, 6);
 * ```
 */
export function decodeText(bytes: Uint8Array): DecodedText {
  const { encoding, bom, bomLength } = detectEncoding(bytes);
  const text = new TextDecoder(encoding, { ignoreBOM: true }).decode(bytes.subarray(bomLength));
  return { text, format: { encoding, bom, lineEnding: detectLineEnding(text) } };
}

/** Encodes `text` as stored in `format` (adds the BOM; line endings are taken as given). */
export function encodeText(text: string, format: Pick<TextFormat, "encoding" | "bom">): Uint8Array {
  if (format.encoding === "utf-16le") {
    const out = new Uint8Array((format.bom ? 2 : 0) + text.length * 2);
    let o = 0;
    if (format.bom) {
      out[o++] = 0xff;
      out[o++] = 0xfe;
    }
    for (let i = 0; i < text.length; i++) {
      const c = text.charCodeAt(i);
      out[o++] = c & 0xff;
      out[o++] = c >> 8;
    }
    return out;
  }
  const body = new TextEncoder().encode(text);
  if (!format.bom) return body;
  const out = new Uint8Array(3 + body.length);
  out.set(UTF8_BOM);
  out.set(body, 3);
  return out;
}

/** `text` with every CRLF turned into LF. */
export function toLf(text: string): string {
  return text.includes("\r\n") ? text.replaceAll("\r\n", "\n") : text;
}

/** `text` (LF) with the given line ending. */
export function withLineEnding(text: string, ending: LineEnding): string {
  return ending === "CRLF" ? text.replace(/\r?\n/g, "\r\n") : text;
}

/**
 * Splits text into lines: a final line break does not start a new line, a
 * trailing `\r` is dropped from each line.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { splitLines } from "./text.ts";
 * assert.equal(splitLines("a\r\nb\n").join("|"), "a|b");
 * ```
 */
export function splitLines(text: string): string[] {
  if (text === "") return [];
  const lines = text.split("\n");
  if (lines[lines.length - 1] === "") lines.pop();
  for (let i = 0; i < lines.length; i++) {
    const l = lines[i];
    if (l.endsWith("\r")) lines[i] = l.slice(0, -1);
  }
  return lines;
}

/** Cuts a line longer than {@link MAX_LINE_CHARS} and says so. */
export function cutLongLine(line: string, max: number = MAX_LINE_CHARS): string {
  if (line.length <= max) return line;
  return `${line.slice(0, max)}… [line cut at ${max} of ${line.length} characters]`;
}

/**
 * One numbered line: the number right-aligned in 6 columns, a tab, the line.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { numberLine } from "./text.ts";
 * assert.equal(numberLine(7, "x"), "     7\tx");
 * ```
 */
export function numberLine(n: number, line: string): string {
  return `${String(n).padStart(6, " ")}\t${line}`;
}

/** Numbered lines starting at `first`. */
export function numberLines(lines: readonly string[], first: number): string {
  return lines.map((l, i) => numberLine(first + i, l)).join("\n");
}

/** Hex SHA-256 of some bytes. */
export async function sha256Hex(bytes: Uint8Array): Promise<string> {
  const digest = await crypto.subtle.digest("SHA-256", bytes as Uint8Array<ArrayBuffer>);
  return Array.from(new Uint8Array(digest), (b) => b.toString(16).padStart(2, "0")).join("");
}

/**
 * Where `needle` (LF line breaks) occurs in `hay`, as `[index, length]`
 * pairs, not overlapping. With `mixed` (a text of LF and CRLF lines), each
 * line break of the needle also matches a CRLF, so a needle copied from
 * Read (which shows no CR) is found across both kinds of line.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { findText } from "./text.ts";
 * assert.equal(JSON.stringify(findText("a\r\nb\nc", "a\nb", true)), "[[0,4]]");
 * assert.equal(findText("a\r\nb", "a\nb", false).length, 0);
 * ```
 */
export function findText(hay: string, needle: string, mixed: boolean): Array<[number, number]> {
  if (!mixed || !needle.includes("\n")) {
    const out: Array<[number, number]> = [];
    for (let i = hay.indexOf(needle); i >= 0; i = hay.indexOf(needle, i + needle.length)) {
      out.push([i, needle.length]);
    }
    return out;
  }
  const escape = (part: string) => part.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
  const re = new RegExp(needle.split("\n").map(escape).join("\\r?\\n"), "g");
  return Array.from(hay.matchAll(re), (m): [number, number] => [m.index, m[0].length]);
}

/**
 * The line ending new text should take when it replaces `[index, index+length)`
 * of a text with mixed endings: that of the line breaks it replaces, else that
 * of the line it sits on.
 */
export function lineEndingAt(text: string, index: number, length: number): LineEnding {
  const found = text.slice(index, index + length);
  if (found.includes("\n")) return found.includes("\r\n") ? "CRLF" : "LF";
  const nl = text.indexOf("\n", index + length);
  return nl > 0 && text[nl - 1] === "\r" ? "CRLF" : "LF";
}

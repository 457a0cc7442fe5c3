/**
 * Takes a window of lines from a stream of file bytes without holding the
 * file: line breaks are counted on the raw bytes (UTF-8, or UTF-16LE code
 * units) and only the lines inside the window are decoded.
 *
 * @module
 */
import { AbortedError } from "../../errors.ts";
import { MAX_LINE_CHARS, type TextEncodingName } from "../../files/text.ts";

/** Bytes kept of one line; past this the line is known to be cut. */
const MAX_LINE_BYTES = MAX_LINE_CHARS * 4 + 8;

/** A window of lines. */
export interface LineWindow {
  /** The lines (no line breaks, a trailing `\r` dropped, long lines cut). */
  lines: string[];
  /** Number of the first line (1-based). */
  startLine: number;
  /** Lines in the file, known when the scan reached the end. */
  totalLines?: number;
  /** Whether lines follow the window. */
  hasMore: boolean;
  /** Whether any line in the window ended with CRLF. */
  sawCrlf: boolean;
  /** How many lines in the window were cut. */
  cutLines: number;
}

/** The options {@link takeLineWindow} takes. */
export interface LineWindowOptions {
  /** First line wanted (1-based). */
  offset: number;
  /** How many lines. */
  limit: number;
  /** Encoding of the bytes. */
  encoding: TextEncodingName;
  /** Bytes to skip at the start (the BOM). */
  skip: number;
  /** Stops the scan. */
  signal?: AbortSignal;
}

/**
 * Scans `chunks` (the file from its first byte) and returns lines
 * `offset`..`offset+limit-1`. Stops reading once it knows whether a line
 * follows the window.
 *
 * @example
 * ```ts
 * import { takeLineWindow } from "./line_window.ts";
 * const bytes = new TextEncoder().encode("a\nb\nc\n");
 * async function* one() { yield bytes; }
 * const w = await takeLineWindow(one(), { offset: 2, limit: 1, encoding: "utf-8", skip: 0 });
 * console.assert(w.lines[0] === "b" && w.hasMore);
 * ```
 */
export async function takeLineWindow(
  chunks: AsyncIterable<Uint8Array>,
  options: LineWindowOptions,
): Promise<LineWindow> {
  const { offset, limit, encoding, signal } = options;
  const unit = encoding === "utf-16le" ? 2 : 1;
  const last = offset + limit - 1;
  const decoder = new TextDecoder(encoding, { ignoreBOM: true });
  const lines: string[] = [];
  let sawCrlf = false, cutLines = 0;
  let lineNo = 1;
  let parts: Uint8Array[] = [], kept = 0, fullBytes = 0;
  let pendingBytes = false; // bytes seen since the last line break
  let skip = options.skip;
  let carry: Uint8Array | undefined;

  const append = (seg: Uint8Array) => {
    fullBytes += seg.length;
    if (kept < MAX_LINE_BYTES && seg.length) {
      const take = seg.subarray(0, Math.min(seg.length, MAX_LINE_BYTES - kept));
      parts.push(take.slice());
      kept += take.length;
    }
  };
  const finishLine = () => {
    const bytes = parts.length === 1 ? parts[0] : concat(parts, kept);
    let line = decoder.decode(bytes);
    if (line.endsWith("\r")) {
      line = line.slice(0, -1);
      sawCrlf = true;
    }
    if (line.length > MAX_LINE_CHARS) {
      cutLines++;
      line = fullBytes > kept
        ? `${
          line.slice(0, MAX_LINE_CHARS)
        }… [line cut at ${MAX_LINE_CHARS} characters; it has ${fullBytes} bytes]`
        : `${line.slice(0, MAX_LINE_CHARS)}… [line cut at ${MAX_LINE_CHARS} of ${line.length} characters]`;
    }
    lines.push(line);
    parts = [];
    kept = 0;
    fullBytes = 0;
  };

  for await (let data of chunks) {
    if (signal?.aborted) throw signal.reason ?? new AbortedError("The read was aborted");
    if (skip > 0) {
      const s = Math.min(skip, data.length);
      data = data.subarray(s);
      skip -= s;
    }
    if (carry) {
      data = concat([carry, data], carry.length + data.length);
      carry = undefined;
    }
    if (unit === 2 && data.length % 2 === 1) {
      carry = data.slice(data.length - 1);
      data = data.subarray(0, data.length - 1);
    }
    if (data.length === 0) continue;
    let segStart = 0;
    for (;;) {
      const nl = findBreak(data, segStart, unit);
      if (nl < 0) break;
      if (lineNo >= offset) {
        append(data.subarray(segStart, nl));
        finishLine();
      }
      lineNo++;
      segStart = nl + unit;
      pendingBytes = false;
      if (lineNo > last) {
        // the window is full: is there anything after it?
        if (segStart < data.length) return done(true);
        break;
      }
    }
    if (lineNo > last) {
      if (segStart < data.length) return done(true);
      continue; // look at the next chunk only to learn whether more follows
    }
    if (segStart < data.length) {
      pendingBytes = true;
      if (lineNo >= offset) append(data.subarray(segStart));
    }
  }
  if (pendingBytes && lineNo >= offset && lineNo <= last) {
    finishLine();
    lineNo++;
  } else if (pendingBytes) lineNo++;
  return done(false, lineNo - 1);

  function done(hasMore: boolean, totalLines?: number): LineWindow {
    return { lines, startLine: offset, totalLines, hasMore, sawCrlf, cutLines };
  }
}

/**
 * Counts the lines of a whole file held in memory (a final line break does
 * not start a new line).
 *
 * @example
 * ```ts
 * import { countLines } from "./line_window.ts";
 * console.assert(countLines(new TextEncoder().encode("a\nb\nc"), "utf-8", 0) === 3);
 * ```
 */
export function countLines(bytes: Uint8Array, encoding: TextEncodingName, skip: number): number {
  const unit = encoding === "utf-16le" ? 2 : 1;
  const data = bytes.subarray(skip);
  let n = 0, last = -unit;
  for (let i = findBreak(data, 0, unit); i >= 0; i = findBreak(data, i + unit, unit)) {
    n++;
    last = i;
  }
  return last + unit < data.length ? n + 1 : n;
}

function findBreak(data: Uint8Array, from: number, unit: number): number {
  if (unit === 1) return data.indexOf(10, from);
  for (let i = data.indexOf(10, from); i >= 0; i = data.indexOf(10, i + 1)) {
    if (i % 2 === 0 && data[i + 1] === 0) return i;
  }
  return -1;
}

function concat(parts: Uint8Array[], length: number): Uint8Array {
  const out = new Uint8Array(length);
  let o = 0;
  for (const p of parts) {
    out.set(p, o);
    o += p.length;
  }
  return out;
}

/** Reads a file handle in chunks of `size` bytes (a fresh view each time, reused buffer). */
export async function* fileChunks(
  file: Pick<Deno.FsFile, "read">,
  size: number = 1 << 20,
): AsyncGenerator<Uint8Array> {
  const buf = new Uint8Array(size);
  for (;;) {
    const n = await file.read(buf);
    if (n === null) return;
    yield buf.subarray(0, n);
  }
}

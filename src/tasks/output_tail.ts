/**
 * Reads the end of a task's output file without loading the whole file.
 *
 * @module
 */

/** Characters of a task's output that TaskOutput returns (the tail). */
export const TASK_OUTPUT_TAIL_CHARS = 25_000;

/** The tail of an output file. */
export interface OutputTail {
  /** The last part of the file (at most `maxBytes` bytes, decoded). */
  text: string;
  /** Size of the file in bytes. */
  totalBytes: number;
  /** Bytes left out before `text`. */
  skippedBytes: number;
}

/**
 * Reads at most the last `maxBytes` bytes of `path` (a missing file reads as empty).
 *
 * @example
 * ```ts
 * import { readOutputTail } from "./output_tail.ts";
 * const f = Deno.makeTempFileSync();
 * Deno.writeTextFileSync(f, "abcdef");
 * const t = await readOutputTail(f, 3);
 * console.assert(t.text === "def" && t.skippedBytes === 3);
 * Deno.removeSync(f);
 * ```
 */
export async function readOutputTail(
  path: string,
  maxBytes: number = TASK_OUTPUT_TAIL_CHARS,
): Promise<OutputTail> {
  let file: Deno.FsFile;
  try {
    file = await Deno.open(path, { read: true });
  } catch (err) {
    if (err instanceof Deno.errors.NotFound) return { text: "", totalBytes: 0, skippedBytes: 0 };
    throw err;
  }
  try {
    const totalBytes = (await file.stat()).size;
    const skippedBytes = Math.max(0, totalBytes - maxBytes);
    await file.seek(skippedBytes, Deno.SeekMode.Start);
    const buf = new Uint8Array(totalBytes - skippedBytes);
    let read = 0;
    while (read < buf.length) {
      const n = await file.read(buf.subarray(read));
      if (n === null) break;
      read += n;
    }
    let start = 0;
    // do not start in the middle of a UTF-8 sequence
    while (skippedBytes > 0 && start < Math.min(read, 4) && (buf[start] & 0xc0) === 0x80) start++;
    return {
      text: new TextDecoder().decode(buf.subarray(start, read)),
      totalBytes,
      skippedBytes: skippedBytes + start,
    };
  } finally {
    file.close();
  }
}

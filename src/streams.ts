/**
 * Reading byte streams as text lines: one splitter for child output (rg,
 * MCP servers) and standard input. A leaf module: it imports nothing.
 *
 * @module
 */

/** The options {@link lines} takes. */
export interface LinesOptions {
  /** The one character that ends a line (`"\0"` for `--null` output). Default `"\n"`. */
  delimiter?: string;
}

/**
 * The UTF-8 lines of `stream`, without their `\n`. A `\r` before the `\n`
 * is kept (strip it where the format asks); a last line without a newline
 * is yielded too, an empty stream yields nothing.
 *
 * Aborting `signal` cancels `stream` and ends the lines without the rest,
 * even while a read is waiting for input; it does not throw. Leaving the
 * loop early (`break`) also cancels `stream`. Lines have no length cap.
 *
 * @example
 * ```ts
 * import { lines } from "./streams.ts";
 * import assert from "node:assert/strict";
 * const stream = new Blob(["one\r\ntw", "o\nthree"]).stream();
 * assert.deepEqual(await Array.fromAsync(lines(stream)), ["one\r", "two", "three"]);
 * const names = new Blob(["a.ts\0b c.ts\0"]).stream();
 * assert.deepEqual(await Array.fromAsync(lines(names, undefined, { delimiter: "\0" })), ["a.ts", "b c.ts"]);
 * ```
 */
export function lines(
  stream: ReadableStream<Uint8Array>,
  signal?: AbortSignal,
  options: LinesOptions = {},
): AsyncGenerator<string, void, undefined> {
  const delimiter = options.delimiter ?? "\n";
  if (delimiter.length !== 1) {
    throw new RangeError(`The delimiter must be one character: got ${JSON.stringify(delimiter)}`);
  }
  return split(stream.pipeThrough(new TextDecoderStream(), signal ? { signal } : {}), delimiter, signal);
}

async function* split(
  text: ReadableStream<string>,
  delimiter: string,
  signal: AbortSignal | undefined,
): AsyncGenerator<string, void, undefined> {
  let rest = "";
  try {
    for await (const chunk of text) {
      // search only the new text: a long line arriving in many chunks stays linear
      let nl = chunk.indexOf(delimiter);
      if (nl === -1) {
        rest += chunk;
        continue;
      }
      const buffer = rest + chunk;
      let start = 0;
      nl += rest.length;
      while (nl !== -1) {
        if (signal?.aborted) return;
        yield buffer.slice(start, nl);
        start = nl + 1;
        nl = buffer.indexOf(delimiter, start);
      }
      rest = buffer.slice(start);
    }
  } catch (err) {
    if (signal?.aborted) return;
    throw err;
  }
  if (rest !== "" && !signal?.aborted) yield rest;
}

/**
 * Where a command's output goes: a bounded amount in memory (everything up
 * to a limit, then only a head and a tail) and, once it is large or when a
 * file is asked for, the whole of it in a file. Memory stays bounded whatever
 * the command prints.
 *
 * @module
 */

/** Output kept whole in memory before switching to head + tail (characters). */
export const MEMORY_CHARS = 200_000;
/** Head kept once past {@link MEMORY_CHARS} (characters). */
export const HEAD_CHARS = 15_000;
/** Tail kept once past {@link MEMORY_CHARS} (characters). */
export const TAIL_CHARS = 12_000;
/**
 * Most bytes one output file receives (64 MiB: a task's log, a command's spilled output). Past it
 * the rest of the output is cut: the file ends with a note saying so, TaskOutput says so too, and
 * a runaway command (`yes`) cannot fill the disk.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { MAX_FILE_BYTES } from "./output_sink.ts";
 * assert.equal(MAX_FILE_BYTES, 64 * 1024 * 1024);
 * ```
 */
export const MAX_FILE_BYTES = 64 * 1024 * 1024;

/** Options of {@link OutputSink}. */
export interface OutputSinkOptions {
  /** Write to this file from the start (background tasks). */
  filePath?: string;
  /** Where to put the file when output grows past {@link MEMORY_CHARS}. */
  spillPath?: () => string;
  /** Keep nothing in memory (only the file). Default false. */
  fileOnly?: boolean;
  /** Most bytes written to the file; later output is dropped after a note in the file. Default {@link MAX_FILE_BYTES}. */
  maxFileBytes?: number;
}

/**
 * Collects output.
 *
 * @example
 * ```ts
 * import { OutputSink } from "./output_sink.ts";
 * const sink = new OutputSink();
 * sink.write("hello ");
 * sink.write("world");
 * console.assert(sink.text() === "hello world");
 * sink.close();
 * ```
 */
export class OutputSink {
  #chunks: string[] = [];
  #chunkChars = 0;
  #head = "";
  #tail: string[] = [];
  #tailChars = 0;
  #total = 0;
  #spilled = false;
  #file: Deno.FsFile | undefined;
  #path: string | undefined;
  #fileBytes = 0;
  #fileFull = false;
  #options: OutputSinkOptions;
  #enc = new TextEncoder();

  /** Creates a sink. */
  constructor(options: OutputSinkOptions = {}) {
    this.#options = options;
    if (options.filePath) this.#openFile(options.filePath);
  }

  /** Characters written so far. */
  get totalChars(): number {
    return this.#total;
  }

  /** The output file, once there is one. */
  get filePath(): string | undefined {
    return this.#path;
  }

  /** Whether the file reached its size limit, so it lacks the output after that point. */
  get fileFull(): boolean {
    return this.#fileFull;
  }

  /** Whether memory holds only the head and tail. */
  get cut(): boolean {
    return this.#spilled;
  }

  /** Adds text. */
  write(text: string): void {
    if (text === "") return;
    this.#total += text.length;
    this.#writeFile(text);
    if (this.#options.fileOnly) return;
    if (!this.#spilled) {
      this.#chunks.push(text);
      this.#chunkChars += text.length;
      if (this.#chunkChars > MEMORY_CHARS) this.#spill();
      return;
    }
    this.#pushTail(text);
  }

  /** Makes sure the output is in a file (writing what memory holds) and returns its path. */
  toFile(path?: string): string | undefined {
    if (this.#path) return this.#path;
    const target = path ?? this.#options.spillPath?.();
    if (!target) return undefined;
    this.#openFile(target);
    if (!this.#spilled) this.#writeFile(this.#chunks.join(""));
    return this.#path;
  }

  /** The whole output when it fit in memory, else head + marker + tail. */
  text(): string {
    if (!this.#spilled) return this.#chunks.join("");
    const tail = this.#tail.join("");
    const cut = this.#total - this.#head.length - tail.length;
    const where = !this.#path
      ? "the full output was not saved"
      : this.#fileFull
      ? `"${this.#path}" holds the output up to its ${
        this.#options.maxFileBytes ?? MAX_FILE_BYTES
      }-byte limit: read it with Read (offset, limit)`
      : `the full output is in "${this.#path}": read it with Read (offset, limit) or search it with Grep`;
    return `${this.#head}\n\n[… ${cut} of ${this.#total} characters cut here; ${where} …]\n\n${tail}`;
  }

  /** Closes the file. */
  close(): void {
    try {
      this.#file?.close();
    } catch {
      // already closed
    }
    this.#file = undefined;
  }

  #openFile(path: string): void {
    // private to the user, like the folder it is in
    this.#file = Deno.openSync(path, { write: true, create: true, truncate: true, mode: 0o600 });
    this.#path = path;
  }

  #writeFile(text: string): void {
    if (!this.#file || this.#fileFull) return;
    const bytes = this.#enc.encode(text);
    const max = this.#options.maxFileBytes ?? MAX_FILE_BYTES;
    if (this.#fileBytes + bytes.length > max) {
      this.#fileFull = true;
      this.#file.writeSync(
        this.#enc.encode(
          `\n[… output file limit of ${max} bytes reached: the rest of the output was cut …]\n`,
        ),
      );
      return;
    }
    this.#file.writeSync(bytes);
    this.#fileBytes += bytes.length;
  }

  #spill(): void {
    const all = this.#chunks.join("");
    if (!this.#file) {
      const path = this.#options.spillPath?.();
      if (path) {
        this.#openFile(path);
        this.#writeFile(all);
      }
    }
    this.#spilled = true;
    this.#head = all.slice(0, HEAD_CHARS);
    this.#chunks = [];
    this.#chunkChars = 0;
    this.#pushTail(all.slice(HEAD_CHARS));
  }

  #pushTail(text: string): void {
    const piece = text.length > TAIL_CHARS ? text.slice(text.length - TAIL_CHARS) : text;
    this.#tail.push(piece);
    this.#tailChars += piece.length;
    while (this.#tailChars - this.#tail[0].length >= TAIL_CHARS) {
      this.#tailChars -= this.#tail.shift()!.length;
    }
    if (this.#tailChars > TAIL_CHARS) {
      this.#tail[0] = this.#tail[0].slice(this.#tailChars - TAIL_CHARS);
      this.#tailChars = TAIL_CHARS;
    }
  }
}

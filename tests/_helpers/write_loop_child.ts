/**
 * Child process for the crash test: rewrites one file forever with
 * `atomicWriteFile` (what Write, Edit and NotebookEdit use), alternating all
 * "A" and all "B", and prints "wrote N" after each write. The parent kills
 * it with SIGKILL. Calling the write directly (not through the Write tool)
 * keeps nearly all of the child's time inside the write, so the kill lands
 * mid-write.
 *
 * Usage: deno run -A write_loop_child.ts <file> <bytes>
 */
import { atomicWriteFile } from "../../src/files/atomic_write.ts";

const [file, sizeArg] = Deno.args;
const size = Number(sizeArg);
const contents = [new Uint8Array(size).fill(0x41), new Uint8Array(size).fill(0x42)];
const encoder = new TextEncoder();
for (let n = 1;; n++) {
  await atomicWriteFile(file, contents[n % 2]);
  await Deno.stdout.write(encoder.encode(`wrote ${n}\n`));
}

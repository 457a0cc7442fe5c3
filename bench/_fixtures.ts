// Fixtures of the file-tool benchmarks, built once under bench/.cache/ (git-ignored).
import { fileURLToPath as fromFileUrl } from "node:url";

/** The cache folder. */
export const CACHE_DIR: string = fromFileUrl(new URL("./.cache/", import.meta.url));
/** Bytes of one line of the fixtures (63 characters and a newline). */
export const LINE_BYTES = 64;

/** One 1 MiB block of numbered 64-byte lines; `block` changes the numbers. */
function block(index: number): Uint8Array {
  const lines = (1 << 20) / LINE_BYTES;
  let s = "";
  for (let i = 0; i < lines; i++) {
    const n = index * lines + i + 1;
    s += `line ${String(n).padStart(10, "0")} ${"lorem ipsum dolor sit amet ".repeat(2)}`.slice(0, 63) + "\n";
  }
  return new TextEncoder().encode(s);
}

/**
 * A text file of `mib` MiB of 64-byte lines, made once. Large files repeat a
 * few distinct blocks so that making 2 GiB takes seconds.
 */
export async function textFixture(name: string, mib: number): Promise<string> {
  await Deno.mkdir(CACHE_DIR, { recursive: true });
  const path = `${CACHE_DIR}${name}`;
  try {
    if ((await Deno.stat(path)).size === mib * (1 << 20)) return path;
  } catch {
    // not made yet
  }
  const blocks = Array.from({ length: Math.min(mib, 16) }, (_, i) => block(i));
  using f = await Deno.open(`${path}.part`, { write: true, create: true, truncate: true });
  for (let i = 0; i < mib; i++) {
    const b = blocks[i % blocks.length];
    for (let off = 0; off < b.length;) off += await f.write(b.subarray(off));
  }
  await Deno.rename(`${path}.part`, path);
  return path;
}

// Read on a 10 MiB and a 2 GiB text file with offset/limit.
//   deno bench -A bench/read_bench.ts
// Fixtures are made once under bench/.cache/ (2 GiB of disk). Peak memory is
// measured in a child process (VmHWM) and printed before the timings.
import { dirname } from "node:path";
import { fileURLToPath as fromFileUrl } from "node:url";
import { runTool } from "../src/tool/run_tool.ts";
import { ToolRegistry } from "../src/tool/registry.ts";
import { Session } from "../src/session/session.ts";
import { readTool } from "../src/tools/read/read.ts";
import { LINE_BYTES, textFixture } from "./_fixtures.ts";

const small = await textFixture("read_10mib.txt", 10);
const huge = await textFixture("read_2gib.txt", 2048);
const registry = new ToolRegistry([readTool]);
const session = new Session({ roots: [dirname(small)], outputDir: Deno.makeTempDirSync() });
const smallMiddle = (10 * 2 ** 20) / LINE_BYTES / 2;
const hugeMiddle = (2048 * 2 ** 20) / LINE_BYTES / 2;

async function peak(file: string, offset: number, limit: number): Promise<string> {
  const child = fromFileUrl(new URL("./_read_peak_child.ts", import.meta.url));
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", "--quiet", child, file, String(offset), String(limit)],
  }).output();
  return new TextDecoder().decode(out.stdout).trim() || new TextDecoder().decode(out.stderr);
}
console.log(`peak RSS, Read 10 MiB offset=${smallMiddle} limit=100: ${await peak(small, smallMiddle, 100)}`);
console.log(`peak RSS, Read 2 GiB offset=5000000 limit=100: ${await peak(huge, 5_000_000, 100)}`);
console.log(`peak RSS, Read 2 GiB offset=${hugeMiddle} limit=100: ${await peak(huge, hugeMiddle, 100)}`);

function read(file: string, offset: number) {
  return async () => {
    const r = await runTool(registry, { name: "Read", input: { file_path: file, offset, limit: 100 } }, {
      session,
    });
    if (!r.ok) throw new Error(r.text);
  };
}

/** The least work any line reader must do: scan bytes for newlines up to the window. */
async function rawScan(file: string, offset: number): Promise<void> {
  using f = await Deno.open(file);
  const buf = new Uint8Array(1 << 20);
  let line = 1;
  for (;;) {
    const n = await f.read(buf);
    if (n === null) return;
    for (let i = buf.indexOf(10); i >= 0 && i < n; i = buf.indexOf(10, i + 1)) {
      if (++line > offset + 100) return;
    }
  }
}

Deno.bench(
  { name: "raw newline scan to the window", group: "read 10 MiB", baseline: true },
  async () => await rawScan(small, smallMiddle),
);
Deno.bench({ name: "whole file: readTextFile + split", group: "read 10 MiB" }, async () => {
  (await Deno.readTextFile(small)).split("\n").slice(smallMiddle - 1, smallMiddle + 99);
});
Deno.bench({ name: "Read offset=middle limit=100", group: "read 10 MiB" }, read(small, smallMiddle));

Deno.bench(
  { name: "raw newline scan to the window", group: "read 2 GiB", baseline: true, n: 3, warmup: 1 },
  async () => await rawScan(huge, hugeMiddle),
);
Deno.bench(
  { name: "Read offset=middle limit=100", group: "read 2 GiB", n: 3, warmup: 1 },
  read(huge, hugeMiddle),
);
Deno.bench(
  { name: "Read offset=5000000 limit=100", group: "read 2 GiB", n: 3, warmup: 1 },
  read(huge, 5_000_000),
);

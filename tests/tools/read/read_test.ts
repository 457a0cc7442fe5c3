import assert from "node:assert/strict";
import type {
  ReadImageData,
  ReadNotebookData,
  ReadPdfData,
  ReadTextData,
} from "../../../src/tools/read/read.ts";
import { runFileTool } from "../../_helpers/file_tools.ts";
import { tempWorkspace } from "../../_helpers/workspace.ts";

const SYSTEM_PDF = "/usr/share/doc/shared-mime-info/shared-mime-info-spec.pdf";
const hasSystemPdf = (() => {
  try {
    return Deno.statSync(SYSTEM_PDF).isFile;
  } catch {
    return false;
  }
})();

function numbered(lines: string[], first = 1): string {
  return lines.map((l, i) => `${String(first + i).padStart(6)}\t${l}`).join("\n");
}

Deno.test("Read returns numbered lines and honours offset and limit", async () => {
  await using ws = await tempWorkspace();
  const p = await ws.write("a.txt", "alpha\nbeta\ngamma\ndelta\n");
  const all = await runFileTool(ws.session, "Read", { file_path: p });
  assert.equal(all.text, numbered(["alpha", "beta", "gamma", "delta"]));
  const mid = await runFileTool(ws.session, "Read", { file_path: p, offset: 2, limit: 2 });
  assert.ok(mid.text.startsWith(numbered(["beta", "gamma"], 2)));
  assert.match(mid.text, /use offset=4 to read on/);
  const data = mid.data as ReadTextData;
  assert.equal(data.nextOffset, 4);
  assert.equal(data.content, "beta\ngamma");
});

Deno.test("Read returns the first 2000 lines of a longer file and the offset to go on", async () => {
  await using ws = await tempWorkspace();
  const p = await ws.write("long.txt", Array.from({ length: 2500 }, (_, i) => `l${i + 1}`).join("\n"));
  const r = await runFileTool(ws.session, "Read", { file_path: p });
  const data = r.data as ReadTextData;
  assert.equal(data.numLines, 2000);
  assert.equal(data.nextOffset, 2001);
  assert.equal(data.totalLines, 2500);
  assert.ok(r.text.includes("  2000\tl2000\n\n(Showing lines 1-2000 of 2500;"), r.text.slice(-200));
  assert.match(r.text, /use offset=2001 to read on/);
  const rest = await runFileTool(ws.session, "Read", { file_path: p, offset: 2001 });
  assert.equal((rest.data as ReadTextData).numLines, 500);
  assert.equal((rest.data as ReadTextData).totalLines, 2500);
  assert.equal((rest.data as ReadTextData).nextOffset, undefined);
});

Deno.test("Read cuts lines over 2000 characters with a marker", async () => {
  await using ws = await tempWorkspace();
  const p = await ws.write("wide.txt", `${"x".repeat(2500)}\nshort\n`);
  const r = await runFileTool(ws.session, "Read", { file_path: p });
  const first = r.text.split("\n")[0];
  assert.equal(first, `     1\t${"x".repeat(2000)}… [line cut at 2000 of 2500 characters]`);
  assert.ok(r.text.endsWith("     2\tshort"));
});

Deno.test("Read warns on an empty file and on an offset past the end", async () => {
  await using ws = await tempWorkspace();
  const empty = await ws.write("empty.txt", "");
  const e = await runFileTool(ws.session, "Read", { file_path: empty });
  assert.ok(e.ok);
  assert.match(e.text, /^Warning: ".*empty.txt" exists but is empty$/);
  const p = await ws.write("three.txt", "1\n2\n3\n");
  const past = await runFileTool(ws.session, "Read", { file_path: p, offset: 10 });
  assert.ok(past.ok);
  assert.match(past.text, /^Warning: .* has 3 lines: offset 10 is past the end/);
});

Deno.test("Read refuses a binary file by its NUL bytes, whatever its extension", async () => {
  await using ws = await tempWorkspace();
  const p = await ws.write("looks.txt", new Uint8Array([0x68, 0x69, 0x00, 0x01, 0x02, 0x0a]));
  const r = await runFileTool(ws.session, "Read", { file_path: p });
  assert.equal(r.ok, false);
  assert.equal(r.error?.code, "invalid_input");
  assert.match(r.text, /looks like a binary file/);
});

Deno.test("Read decodes UTF-8 with BOM, UTF-16LE with BOM, and shows CRLF lines without the CR", async () => {
  await using ws = await tempWorkspace();
  const bom = await ws.write(
    "bom.txt",
    new Uint8Array([0xef, 0xbb, 0xbf, ...new TextEncoder().encode("héllo\r\nwörld\r\n")]),
  );
  const r1 = await runFileTool(ws.session, "Read", { file_path: bom });
  assert.equal(r1.text, numbered(["héllo", "wörld"]));
  assert.equal((r1.data as ReadTextData).crlf, true);
  const u16 = [0xff, 0xfe];
  for (const c of "ünï\r\ncödé ✓\n") u16.push(c.charCodeAt(0) & 0xff, c.charCodeAt(0) >> 8);
  const p16 = await ws.write("u16.txt", new Uint8Array(u16));
  const r2 = await runFileTool(ws.session, "Read", { file_path: p16 });
  assert.equal(r2.text, numbered(["ünï", "cödé ✓"]));
  assert.equal((r2.data as ReadTextData).encoding, "utf-16le");
});

Deno.test("Read streams a file larger than the whole-load limit and takes a window from its middle", async () => {
  await using ws = await tempWorkspace();
  // 17 MB: past FULL_LOAD_BYTES (16 MB), so the streaming path runs
  const line = (n: number) => `row ${String(n).padStart(9, "0")} ${"-".repeat(50)}\n`;
  const count = Math.ceil((17 * 1024 * 1024) / line(0).length);
  const f = await Deno.open(ws.path("big.txt"), { write: true, create: true });
  const block: string[] = [];
  for (let n = 1; n <= count; n++) {
    block.push(line(n));
    if (block.length === 10000 || n === count) {
      await f.write(new TextEncoder().encode(block.join("")));
      block.length = 0;
    }
  }
  f.close();
  const r = await runFileTool(ws.session, "Read", {
    file_path: ws.path("big.txt"),
    offset: 150_000,
    limit: 3,
  });
  assert.ok(r.text.startsWith(numbered([150_000, 150_001, 150_002].map((n) => line(n).trimEnd()), 150_000)));
  assert.equal((r.data as ReadTextData).nextOffset, 150_003);
  const tail = await runFileTool(ws.session, "Read", {
    file_path: ws.path("big.txt"),
    offset: count,
    limit: 5,
  });
  assert.equal((tail.data as ReadTextData).numLines, 1);
  assert.equal((tail.data as ReadTextData).totalLines, count);
});

Deno.test("Read returns an image as image content with its dimensions", async () => {
  await using ws = await tempWorkspace();
  // a complete 1×1 PNG
  const png = Uint8Array.from(
    atob(
      "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==",
    ),
    (c) => c.charCodeAt(0),
  );
  const p = await ws.write("dot.png", png);
  const r = await runFileTool(ws.session, "Read", { file_path: p });
  assert.ok(r.ok, r.text);
  assert.equal(r.images?.[0].mediaType, "image/png");
  assert.equal(r.images?.[0].data, btoa(String.fromCharCode(...png)));
  const d = r.data as ReadImageData;
  assert.deepEqual([d.width, d.height], [1, 1]);
  const gif = await ws.write(
    "x.gif",
    new Uint8Array([0x47, 0x49, 0x46, 0x38, 0x39, 0x61, 3, 0, 2, 0, 0, 0, 0]),
  );
  const g = await runFileTool(ws.session, "Read", { file_path: gif });
  assert.deepEqual([(g.data as ReadImageData).width, (g.data as ReadImageData).height], [3, 2]);
});

Deno.test("Read returns real JPEG and WebP files as images with their dimensions", async () => {
  await using ws = await tempWorkspace();
  for (const [name, mediaType] of [["python.jpg", "image/jpeg"], ["python.webp", "image/webp"]]) {
    const bytes = await Deno.readFile(new URL(`../fixtures/${name}`, import.meta.url));
    const p = await ws.write(name, bytes);
    const r = await runFileTool(ws.session, "Read", { file_path: p });
    assert.ok(r.ok, r.text);
    assert.equal(r.images?.[0].mediaType, mediaType);
    assert.equal(r.images?.[0].data, btoa(String.fromCharCode(...bytes)));
    const d = r.data as ReadImageData;
    assert.deepEqual([d.mediaType, d.width, d.height], [mediaType, 16, 16]);
  }
  // a .png that is really text is judged by its bytes, not its name
  const fake = await ws.write("fake.png", "not an image\n");
  const t = await runFileTool(ws.session, "Read", { file_path: fake });
  assert.ok(t.ok, t.text);
  assert.equal(t.text, "     1\tnot an image");
});

/** A minimal PDF of `pages` pages, page k saying "Page k text" (Helvetica, xref offsets computed). */
function tinyPdf(pages: number): Uint8Array {
  const objs: string[] = [];
  const kids = Array.from({ length: pages }, (_, k) => `${4 + 2 * k} 0 R`).join(" ");
  objs.push("<< /Type /Catalog /Pages 2 0 R >>");
  objs.push(`<< /Type /Pages /Kids [${kids}] /Count ${pages} >>`);
  objs.push("<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>");
  for (let k = 1; k <= pages; k++) {
    objs.push(
      `<< /Type /Page /Parent 2 0 R /MediaBox [0 0 300 200] /Resources << /Font << /F1 3 0 R >> >> /Contents ${
        5 + 2 * (k - 1)
      } 0 R >>`,
    );
    const stream = `BT /F1 12 Tf 20 100 Td (Page ${k} text) Tj ET`;
    objs.push(`<< /Length ${stream.length} >>\nstream\n${stream}\nendstream`);
  }
  let out = "%PDF-1.4\n";
  const offsets: number[] = [];
  objs.forEach((o, i) => {
    offsets.push(out.length);
    out += `${i + 1} 0 obj\n${o}\nendobj\n`;
  });
  const xref = out.length;
  out += `xref\n0 ${objs.length + 1}\n0000000000 65535 f \n`;
  for (const off of offsets) out += `${String(off).padStart(10, "0")} 00000 n \n`;
  out += `trailer\n<< /Size ${objs.length + 1} /Root 1 0 R >>\nstartxref\n${xref}\n%%EOF\n`;
  return new TextEncoder().encode(out);
}

Deno.test("Read returns every page of a PDF of at most 10 pages without a range", async () => {
  await using ws = await tempWorkspace();
  const p = await ws.write("short.pdf", tinyPdf(3));
  const r = await runFileTool(ws.session, "Read", { file_path: p });
  assert.ok(r.ok, r.text);
  const d = r.data as ReadPdfData;
  assert.equal(d.pageCount, 3);
  assert.deepEqual(d.pages.map((x) => [x.page, x.text.trim()]), [[1, "Page 1 text"], [2, "Page 2 text"], [
    3,
    "Page 3 text",
  ]]);
  assert.match(r.text, /pages 1-3 of 3\n\n--- Page 1 ---\nPage 1 text/);
  const eleven = await ws.write("eleven.pdf", tinyPdf(11));
  const refused = await runFileTool(ws.session, "Read", { file_path: eleven });
  assert.equal(refused.error?.code, "invalid_input");
  assert.match(refused.text, /has 11 pages: give "pages"/);
  const last = await runFileTool(ws.session, "Read", { file_path: eleven, pages: "11" });
  assert.deepEqual((last.data as ReadPdfData).pages.map((x) => x.text.trim()), ["Page 11 text"]);
});

Deno.test({
  name: "Read extracts a real PDF's text per page and asks for a range past 10 pages",
  ignore: !hasSystemPdf,
  fn: async () => {
    await using ws = await tempWorkspace();
    const p = await ws.write("spec.pdf", await Deno.readFile(SYSTEM_PDF));
    const all = await runFileTool(ws.session, "Read", { file_path: p });
    assert.equal(all.ok, false);
    assert.match(all.text, /has 17 pages: give "pages", e\.g\. pages="1-10"/);
    const two = await runFileTool(ws.session, "Read", { file_path: p, pages: "2-3" });
    assert.ok(two.ok, two.text);
    const d = two.data as ReadPdfData;
    assert.equal(d.pageCount, 17);
    assert.deepEqual(d.pages.map((x) => x.page), [2, 3]);
    assert.match(two.text, /--- Page 2 ---/);
    assert.match(two.text, /Language used in this specification/);
    const one = await runFileTool(ws.session, "Read", { file_path: p, pages: "1" });
    assert.match(one.text, /Shared MIME-info Database/);
    const tooMany = await runFileTool(ws.session, "Read", { file_path: p, pages: "1-21" });
    assert.match(tooMany.text, /at most 20 a call/);
    const past = await runFileTool(ws.session, "Read", { file_path: p, pages: "30" });
    assert.match(past.text, /has 17 pages/);
    const bad = await runFileTool(ws.session, "Read", { file_path: p, pages: "two" });
    assert.equal(bad.error?.code, "invalid_input");
  },
});

Deno.test("Read shows a real notebook's cells with their outputs", async () => {
  await using ws = await tempWorkspace();
  const src = new URL("../fixtures/squares.ipynb", import.meta.url);
  const p = await ws.write("squares.ipynb", await Deno.readFile(src));
  const r = await runFileTool(ws.session, "Read", { file_path: p });
  assert.ok(r.ok, r.text);
  const d = r.data as ReadNotebookData;
  assert.deepEqual(d.cells.map((c) => c.cellType), ["markdown", "code", "code", "code"]);
  assert.deepEqual(d.cells[1].outputs, ["[0, 1, 4, 9, 16]"]);
  assert.deepEqual(d.cells[2].outputs, ["30"]);
  assert.match(d.cells[3].outputs[0], /^ZeroDivisionError: division by zero/);
  assert.ok(!r.text.includes("\x1b"));
  assert.match(r.text, /<cell id="[0-9a-f]{8}" index="1" type="code" execution_count="1">\nsquares = /);
});

Deno.test("Read refuses relative paths, folders, pipes and paths outside the workspace", async () => {
  await using ws = await tempWorkspace();
  await ws.write("sub/in.txt", "x");
  const rel = await runFileTool(ws.session, "Read", { file_path: "sub/in.txt" });
  assert.equal(rel.error?.code, "invalid_input");
  assert.ok(rel.text.includes(`did you mean "${ws.path("sub", "in.txt")}"`));
  const dir = await runFileTool(ws.session, "Read", { file_path: ws.path("sub") });
  assert.match(dir.text, /is a directory/);
  const fifo = ws.path("pipe");
  const made = await new Deno.Command("mkfifo", { args: [fifo] }).output();
  assert.ok(made.success);
  const pipe = await runFileTool(ws.session, "Read", { file_path: fifo });
  assert.match(pipe.text, /device, socket or pipe/);
  const missing = await runFileTool(ws.session, "Read", { file_path: ws.path("nope.txt") });
  assert.equal(missing.error?.code, "not_found");
});

Deno.test("Read refuses a symlink that escapes the workspace", async () => {
  await using ws = await tempWorkspace();
  await using outside = await tempWorkspace("paddock-outside-");
  const secret = await outside.write("secret.txt", "top secret\n");
  await Deno.symlink(secret, ws.path("link.txt"));
  const r = await runFileTool(ws.session, "Read", { file_path: ws.path("link.txt") });
  assert.equal(r.error?.code, "permission_denied");
  assert.match(r.text, /outside the workspace/);
  assert.doesNotMatch(r.text, /top secret/);
});

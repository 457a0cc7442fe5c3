import assert from "node:assert/strict";
import { runTool } from "../../../src/tool/run_tool.ts";
import { ToolRegistry } from "../../../src/tool/registry.ts";
import { readTool } from "../../../src/tools/read/read.ts";
import { tempWorkspace } from "../../_helpers/workspace.ts";

// A file that claims to be an image (by its name or its magic bytes) but is not one is a clear
// error, never lines of raw bytes; only text named like an image (a Git LFS pointer) reads as text.

const registry = new ToolRegistry([readTool]);
const PNG_SIGNATURE = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a];

Deno.test("Read of an image that does not decode is a clear error", async () => {
  await using ws = await tempWorkspace();
  const cases: Array<[string, Uint8Array, RegExp]> = [
    ["sig.png", new Uint8Array(PNG_SIGNATURE), /its PNG header is damaged or cut short \(8 bytes\)/],
    [
      "zero.png",
      new Uint8Array([...PNG_SIGNATURE, 0, 0, 0, 13, 73, 72, 68, 82, 0, 0, 0, 0, 0, 0, 0, 0]),
      /its PNG header/,
    ],
    ["cut.jpg", new Uint8Array([0xff, 0xd8, 0xff, 0xe0, 0, 16]), /its JPEG header/],
    ["gif.webp", new Uint8Array([0x47, 0x49, 0x46, 0x38]), /its GIF header/],
    ["noise.gif", new Uint8Array([1, 2, 3, 0, 0xfe, 0xff]), /it is not a PNG, JPEG, GIF or WebP file/],
  ];
  for (const [name, bytes, why] of cases) {
    await ws.write(name, bytes);
    const r = await runTool(registry, { name: "Read", input: { file_path: ws.path(name) } }, {
      session: ws.session,
    });
    assert.equal(r.ok, false, `${name}: ${r.text}`);
    assert.equal(r.error?.code, "invalid_input", name);
    assert.match(
      r.text,
      new RegExp(`^Error: Cannot read ".*${name.replace(".", "\\.")}" as an image: `),
      name,
    );
    assert.match(r.text, why, name);
  }
});

Deno.test("Read of text named like an image reads it as text", async () => {
  await using ws = await tempWorkspace();
  const p = await ws.write("pointer.png", "version https://git-lfs.github.com/spec/v1\noid sha256:abc\n");
  const r = await runTool(registry, { name: "Read", input: { file_path: p } }, { session: ws.session });
  assert.ok(r.ok, r.text);
  assert.match(r.text, /git-lfs/);
});

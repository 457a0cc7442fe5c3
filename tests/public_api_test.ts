// The public surface: a small root entry, the rest on subpaths, every entry
// point documented well enough for `deno doc --lint` (run over all entries at
// once, as JSR reads the package: a type exported by one entry is public for
// the others).
import assert from "node:assert/strict";
import { basename } from "node:path";
import { fromFileUrl } from "./_helpers/paths.ts";

/** The most names the root `mod.ts` may export (values and types together). */
const MAX_ROOT_EXPORTS = 60;
/** Names a library user never calls: none may be reachable from an entry point. */
const INTERNAL_NAMES = [
  "startWalkHelper",
  "newTaskId",
  "bubblewrapArgs",
  "seatbeltArgs",
  "Ledger",
  "EventQueue",
];

const ROOT = new URL("../", import.meta.url);
const CONFIG = JSON.parse(await Deno.readTextFile(new URL("deno.json", ROOT))) as {
  exports: Record<string, string>;
};
const ENTRIES = Object.entries(CONFIG.exports).map(([path, file]) => ({
  path,
  file,
  abs: fromFileUrl(new URL(file, ROOT)),
}));

interface DocSymbol {
  name: string;
  declarations: { location: { filename: string } }[];
}

async function deno(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  const out = await new Deno.Command(Deno.execPath(), {
    args,
    cwd: fromFileUrl(ROOT),
    env: { NO_COLOR: "1" },
    stdout: "piped",
    stderr: "piped",
  }).output();
  const text = new TextDecoder();
  return { code: out.code, stdout: text.decode(out.stdout), stderr: text.decode(out.stderr) };
}

/** The top-level symbols each entry exports, by entry file path. */
async function exportedSymbols(files: string[]): Promise<Map<string, DocSymbol[]>> {
  const { code, stdout, stderr } = await deno(["doc", "--json", ...files]);
  assert.equal(code, 0, stderr);
  const nodes = (JSON.parse(stdout) as { nodes: Record<string, { symbols: DocSymbol[] }> }).nodes;
  return new Map(
    Object.entries(nodes).map(([specifier, node]) => [fromFileUrl(new URL(specifier)), node.symbols]),
  );
}

Deno.test(`The root entry exports at most ${MAX_ROOT_EXPORTS} names`, async () => {
  const root = ENTRIES.find((e) => e.path === ".");
  assert.ok(root, 'deno.json "exports" has no "." entry');
  const [symbols] = (await exportedSymbols([root.abs])).values();
  const names = new Set(symbols.map((s) => s.name));
  assert.ok(names.has("defineTool") && names.has("createRuntime") && names.has("runAgent"));
  assert.ok(
    names.size <= MAX_ROOT_EXPORTS,
    `mod.ts exports ${names.size} names (at most ${MAX_ROOT_EXPORTS}): move some to a subpath entry`,
  );
});

Deno.test("Every deno.json export path names an existing entry file", async () => {
  assert.ok(ENTRIES.length > 1, "the package has subpath entries");
  for (const entry of ENTRIES) {
    assert.match(entry.path, /^\.(\/[a-z]+)?$/, `export path "${entry.path}"`);
    const info = await Deno.stat(entry.abs).catch(() => undefined);
    assert.ok(info?.isFile, `export "${entry.path}" names "${entry.file}", which does not exist`);
  }
});

Deno.test("Entry points re-export by name, from no private file, and nothing internal", async () => {
  for (const entry of ENTRIES) {
    const text = await Deno.readTextFile(entry.abs);
    assert.doesNotMatch(text, /export\s*\*/, `${entry.file} uses "export *"`);
    assert.doesNotMatch(text, /from\s+"[^"]*\/_[^/"]*"/, `${entry.file} re-exports from a private file`);
  }
  const bySymbol = await exportedSymbols(ENTRIES.map((e) => e.abs));
  for (const [file, symbols] of bySymbol) {
    for (const symbol of symbols) {
      assert.ok(!INTERNAL_NAMES.includes(symbol.name), `${file} exports the internal "${symbol.name}"`);
      for (const declaration of symbol.declarations) {
        const home = basename(fromFileUrl(new URL(declaration.location.filename)));
        assert.ok(!home.startsWith("_"), `${file} exports "${symbol.name}" from the private ${home}`);
      }
    }
  }
});

Deno.test("deno doc --lint finds nothing to fix in the entry points", async () => {
  const { code, stdout, stderr } = await deno(["doc", "--lint", ...ENTRIES.map((e) => e.abs)]);
  const problems = `${stdout}\n${stderr}`.split("\n").filter((l) => l.startsWith("error"));
  assert.equal(code, 0, `deno doc --lint:\n${problems.join("\n")}`);
});

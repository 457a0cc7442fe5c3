// What `paddock --help` and `paddock exec Read` load, asserted on what the process really
// imports: the heavy packages are mapped to tripwire modules that throw when evaluated (an
// import map built from deno.json, the other packages real), so any load, static or dynamic,
// fails the command. A control checks that the tripwires fire.
import assert from "node:assert/strict";
import { join } from "node:path";
import { fromFileUrl } from "../_helpers/paths.ts";
import { tempWorkspace } from "../_helpers/workspace.ts";

const REPO = fromFileUrl(new URL("../../", import.meta.url));
const CLI = join(REPO, "cli.ts");
/** The packages a start-up must not load, by import-map key prefix. */
const HEAVY = ["openai", "pdfjs-dist", "turndown", "@modelcontextprotocol/sdk"];
/** Subpaths of the folder-mapped packages that the code imports. */
const SUBPATHS = [
  "legacy/build/pdf.mjs",
  "legacy/build/pdf.worker.mjs",
  "client/index.js",
  "client/streamableHttp.js",
  "server/index.js",
  "server/webStandardStreamableHttp.js",
  "shared/stdio.js",
  "types.js",
];

/** Writes tripwires and a config whose import map sends the heavy packages to them. */
async function tripwireConfig(dir: string): Promise<string> {
  const { imports } = JSON.parse(await Deno.readTextFile(join(REPO, "deno.json"))) as {
    imports: Record<string, string>;
  };
  const trip = (name: string) =>
    `throw new Error("tripwire: ${name} was loaded");\nexport default undefined;\n`;
  for (const key of Object.keys(imports)) {
    const name = HEAVY.find((h) => key === h || key.startsWith(`${h}/`));
    if (!name) continue;
    const folder = join(dir, "tripwires", name);
    await Deno.mkdir(folder, { recursive: true });
    if (key.endsWith("/")) {
      for (const sub of SUBPATHS) {
        await Deno.mkdir(join(folder, sub, ".."), { recursive: true });
        await Deno.writeTextFile(join(folder, sub), trip(name));
      }
      imports[key] = `file://${folder}/`;
    } else {
      await Deno.writeTextFile(join(folder, "index.js"), trip(name));
      imports[key] = `file://${folder}/index.js`;
    }
  }
  const config = join(dir, "deno.json");
  await Deno.writeTextFile(config, JSON.stringify({ imports }));
  return config;
}

async function run(config: string, script: string, args: string[], cwd: string) {
  const { code, stdout, stderr } = await new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", "--no-lock", "--config", config, script, ...args],
    cwd,
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
    env: { NO_COLOR: "1" },
  }).output();
  return { code, out: new TextDecoder().decode(stdout), err: new TextDecoder().decode(stderr) };
}

Deno.test("paddock --help and exec Read load none of openai, pdfjs, turndown and the MCP SDK", async () => {
  await using ws = await tempWorkspace();
  const config = await tripwireConfig(ws.path("trip"));
  const probes = [
    "openai",
    "turndown",
    "pdfjs-dist/legacy/build/pdf.mjs",
    "@modelcontextprotocol/sdk/types.js",
  ];
  await ws.write(
    "control.ts",
    probes.map((p) => `await import("${p}").catch((e) => console.log(e.message));`).join("\n"),
  );
  const control = await run(config, ws.path("control.ts"), [], ws.dir);
  for (const h of HEAVY) {
    assert.match(control.out, new RegExp(`tripwire: ${h} was loaded`), control.out + control.err);
  }

  const help = await run(config, CLI, ["--help"], ws.dir);
  assert.equal(help.code, 0, help.err);
  assert.match(help.out, /^Usage: paddock <command>/m);
  const execHelp = await run(config, CLI, ["exec", "--help"], ws.dir);
  assert.equal(execHelp.code, 0, execHelp.err);

  await ws.write("notes.txt", "first line\nsecond line\n");
  const read = await run(
    config,
    CLI,
    ["exec", "--quiet", "--root", ws.dir, "Read", JSON.stringify({ file_path: ws.path("notes.txt") })],
    ws.dir,
  );
  assert.equal(read.code, 0, read.err);
  assert.match(read.out, /second line/);
  assert.doesNotMatch(read.err, /tripwire|not found/i);
});

Deno.test("paddock exec Read loads no other built-in tool's module", async () => {
  await using ws = await tempWorkspace();
  const config = await tripwireConfig(ws.path("trip"));
  // every tool module the lazy table (src/tools/catalog.ts) imports, Read's excepted, mapped to a tripwire
  const catalog = await Deno.readTextFile(join(REPO, "src", "tools", "catalog.ts"));
  const modules = [...catalog.matchAll(/import\("\.\/([^"]+)"\)/g)].map((m) => `src/tools/${m[1]}`);
  assert.ok(modules.length >= 16 && modules.includes("src/tools/read/read.ts"), modules.join(" "));
  const map = JSON.parse(await Deno.readTextFile(config)) as { imports: Record<string, string> };
  for (const module of modules.filter((m) => m !== "src/tools/read/read.ts")) {
    const stand = ws.path("trip", "tools", module.replaceAll("/", "_").replace(/\.ts$/, ".js"));
    await Deno.mkdir(join(stand, ".."), { recursive: true });
    await Deno.writeTextFile(stand, `throw new Error("tripwire: ${module} was loaded");\n`);
    map.imports[`file://${join(REPO, module)}`] = `file://${stand}`;
  }
  await Deno.writeTextFile(config, JSON.stringify(map));
  await ws.write("notes.txt", "first line\nsecond line\n");
  const exec = (tool: string, input: unknown) =>
    run(config, CLI, ["exec", "--quiet", "--root", ws.dir, tool, JSON.stringify(input)], ws.dir);

  const read = await exec("Read", { file_path: ws.path("notes.txt") });
  assert.equal(read.code, 0, read.err);
  assert.match(read.out, /second line/);
  assert.doesNotMatch(read.err, /tripwire/);
  // the control: the tool a command does call is loaded, and its tripwire fires
  const glob = await exec("Glob", { pattern: "*.txt" });
  assert.notEqual(glob.code, 0);
  assert.match(glob.err, /tripwire: src\/tools\/glob\.ts was loaded/);
});

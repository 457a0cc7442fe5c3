/**
 * A tree for the search tools' tests.
 *
 * @module
 */
import type { TempWorkspace } from "./workspace.ts";

/** 90 package folders with nested ignore files, hidden files, a .git and spread mtimes. */
export async function buildTree(ws: TempWorkspace): Promise<string> {
  const root = ws.path("tree");
  await ws.write("tree/.git/HEAD", "ref: refs/heads/main\n");
  await ws.write("tree/.gitignore", "*.log\nbuild/\nnode_modules/\n!keep.log\n");
  await ws.write("tree/node_modules/dep/index.ts", "x");
  await ws.write("tree/.cfg/hidden.ts", "x");
  await ws.write("tree/keep.log", "x");
  let n = 0;
  for (let p = 0; p < 90; p++) {
    for (let m = 0; m < 3; m++) {
      const dir = `tree/p${p}/m${m}`;
      for (let f = 0; f < 4; f++) await ws.write(`${dir}/a${f}.ts`, "x");
      await ws.write(`${dir}/b.js`, "x");
      await ws.write(`${dir}/debug.log`, "x");
      await ws.write(`${dir}/build/out.ts`, "x");
    }
    if (p % 7 === 0) await ws.write(`tree/p${p}/.gitignore`, "*.js\nm1/\n!m1/\n");
    if (p % 11 === 0) await ws.write(`tree/p${p}/.ignore`, "a3.ts\n");
  }
  // spread mtimes so the newest-first order means something
  for await (const path of walkFiles(root)) {
    const t = new Date(Date.UTC(2020, 0, 1) + (n++ * 7919 % 5000) * 1000);
    Deno.utimeSync(path, t, t);
  }
  return root;
}

async function* walkFiles(dir: string): AsyncGenerator<string> {
  for await (const e of Deno.readDir(dir)) {
    const p = `${dir}/${e.name}`;
    if (e.isDirectory) yield* walkFiles(p);
    else yield p;
  }
}

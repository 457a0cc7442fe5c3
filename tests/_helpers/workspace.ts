/** Test helpers: real temp workspaces that clean themselves up. */
import { Session } from "../../src/session/session.ts";

/** A temp workspace with a session rooted in it. */
export interface TempWorkspace extends AsyncDisposable {
  /** The workspace folder (real path). */
  dir: string;
  /** A session rooted at `dir`, output folder inside a sibling temp folder. */
  session: Session;
  /** Absolute path of a file inside the workspace. */
  path(...parts: string[]): string;
  /** Writes a file (creating folders) and returns its absolute path. */
  write(rel: string, content: string | Uint8Array): Promise<string>;
}

/** Creates a temp workspace; `await using ws = await tempWorkspace()`. */
export async function tempWorkspace(prefix = "paddock-test-"): Promise<TempWorkspace> {
  const dir = await Deno.realPath(await Deno.makeTempDir({ prefix }));
  const out = await Deno.makeTempDir({ prefix: `${prefix}out-` });
  const session = new Session({ roots: [dir], outputDir: out });
  const path = (...parts: string[]) => [dir, ...parts].join("/");
  return {
    dir,
    session,
    path,
    async write(rel, content) {
      const p = path(rel);
      await Deno.mkdir(p.slice(0, p.lastIndexOf("/")), { recursive: true });
      if (typeof content === "string") await Deno.writeTextFile(p, content);
      else await Deno.writeFile(p, content);
      return p;
    },
    async [Symbol.asyncDispose]() {
      await Deno.remove(dir, { recursive: true }).catch(() => {});
      await Deno.remove(out, { recursive: true }).catch(() => {});
    },
  };
}

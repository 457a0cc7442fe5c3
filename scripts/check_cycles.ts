/**
 * Fails when our own modules import each other in a cycle.
 *
 * Asks `deno info --json` for the module graph of each entry file (default:
 * `mod.ts`, `cli.ts`, `launch.ts` and the files named in the `exports` of
 * `deno.json`, those that exist), keeps the `file://` modules under the
 * current folder (static, type-only and dynamic imports alike), finds the
 * strongly connected components with Tarjan's algorithm, and prints one
 * cycle per file caught in a component. It does the same for folders (a
 * module's path cut to two segments: `src/loop`, `src/tools`), so that a
 * layer importing an upper one that imports it back fails too, even with no
 * file cycle. Exit code 0 without a cycle, 1 with one, 2 when the graph
 * cannot be read.
 *
 * No dependencies: Deno built-ins only.
 *
 * @example
 * ```sh
 * deno run -A scripts/check_cycles.ts                  # the package's entry files
 * deno run -A scripts/check_cycles.ts src/tool/run_tool.ts
 * ```
 *
 * @module
 */

/** The entry files checked when none are given, besides the `exports` of `deno.json`. */
export const DEFAULT_ENTRIES: readonly string[] = ["mod.ts", "cli.ts", "launch.ts"];

/** A module graph: each module's URL and the URLs it imports. */
export type ImportGraph = Map<string, Set<string>>;

interface InfoDependency {
  code?: { specifier?: string };
  type?: { specifier?: string };
}

interface InfoModule {
  specifier: string;
  dependencies?: InfoDependency[];
  error?: string;
}

/**
 * The import graph of `entries`, restricted to `file://` modules under `root`
 * (a folder URL ending in `/`), outside any `node_modules`. Throws when one
 * of those modules cannot be loaded, since the graph would be incomplete.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { importGraph } from "./check_cycles.ts";
 * const graph = await importGraph(["scripts/check_cycles.ts"], new URL(`file://${Deno.cwd()}/`).href);
 * assert.equal(graph.size, 1);
 * ```
 */
export async function importGraph(entries: readonly string[], root: string): Promise<ImportGraph> {
  const ours = (url: string | undefined): url is string =>
    url !== undefined && url.startsWith(root) && !url.includes("/node_modules/");
  const graph: ImportGraph = new Map();
  for (const entry of entries) {
    const out = await new Deno.Command(Deno.execPath(), {
      args: ["info", "--json", entry],
      stdout: "piped",
      stderr: "piped",
    }).output();
    if (!out.success) {
      throw new Error(`deno info failed for "${entry}": ${new TextDecoder().decode(out.stderr).trim()}`);
    }
    const info = JSON.parse(new TextDecoder().decode(out.stdout)) as { modules: InfoModule[] };
    for (const module of info.modules) {
      if (!ours(module.specifier)) continue;
      // a module of ours that cannot be loaded leaves the graph incomplete: no verdict on it
      if (module.error) throw new Error(`deno info failed for "${entry}": ${module.error}`);
      const edges = graph.get(module.specifier) ?? new Set<string>();
      graph.set(module.specifier, edges);
      for (const dep of module.dependencies ?? []) {
        for (const target of [dep.code?.specifier, dep.type?.specifier]) {
          if (ours(target)) edges.add(target);
        }
      }
    }
  }
  return graph;
}

/**
 * The strongly connected components of `graph` that hold a cycle (two or
 * more modules, or one that imports itself), by Tarjan's algorithm.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { cyclicComponents } from "./check_cycles.ts";
 * const graph = new Map([["a", new Set(["b"])], ["b", new Set(["a"])], ["c", new Set(["a"])]]);
 * assert.deepEqual(cyclicComponents(graph), [["a", "b"]]);
 * ```
 */
export function cyclicComponents(graph: ImportGraph): string[][] {
  let counter = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const components: string[][] = [];
  const visit = (node: string): void => {
    index.set(node, counter);
    low.set(node, counter++);
    stack.push(node);
    onStack.add(node);
    for (const next of graph.get(node) ?? []) {
      if (!index.has(next)) {
        visit(next);
        low.set(node, Math.min(low.get(node)!, low.get(next)!));
      } else if (onStack.has(next)) {
        low.set(node, Math.min(low.get(node)!, index.get(next)!));
      }
    }
    if (low.get(node) !== index.get(node)) return;
    const component: string[] = [];
    let member: string;
    do {
      member = stack.pop()!;
      onStack.delete(member);
      component.push(member);
    } while (member !== node);
    if (component.length > 1 || graph.get(node)?.has(node)) components.push(component.sort());
  };
  for (const node of [...graph.keys()].sort()) if (!index.has(node)) visit(node);
  return components;
}

/**
 * Cycles that together pass through every module of `component`: for each
 * module not yet named, the shortest cycle from it back to itself, each as
 * the list of modules with the first repeated at the end.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { cyclesOf } from "./check_cycles.ts";
 * const graph = new Map([["a", new Set(["b"])], ["b", new Set(["a"])]]);
 * assert.deepEqual(cyclesOf(graph, ["a", "b"]), [["a", "b", "a"]]);
 * ```
 */
export function cyclesOf(graph: ImportGraph, component: readonly string[]): string[][] {
  const inside = new Set(component);
  const named = new Set<string>();
  const cycles: string[][] = [];
  for (const start of component) {
    if (named.has(start)) continue;
    // breadth-first from start, inside the component, until an edge leads back to start
    const parent = new Map<string, string>();
    const queue = [start];
    let last: string | undefined;
    for (let i = 0; i < queue.length && last === undefined; i++) {
      for (const next of graph.get(queue[i]) ?? []) {
        if (next === start) {
          last = queue[i];
          break;
        }
        if (inside.has(next) && !parent.has(next)) {
          parent.set(next, queue[i]);
          queue.push(next);
        }
      }
    }
    if (last === undefined) continue;
    const path = [start];
    for (let node = last; node !== start; node = parent.get(node)!) path.splice(1, 0, node);
    path.push(start);
    path.forEach((node) => named.add(node));
    cycles.push(path);
  }
  return cycles;
}

/**
 * The folder graph of a module graph: a module's folder is its path under
 * `root` cut to two segments (`src/tools/bash/bash.ts` is in `src/tools`,
 * `mod.ts` in `.`). Each edge keeps one module import that makes it, for the
 * message.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { folderGraph } from "./check_cycles.ts";
 * const graph = new Map([["file:///r/src/a/x.ts", new Set(["file:///r/src/b/y.ts"])]]);
 * const { folders } = folderGraph(graph, "file:///r/");
 * assert.deepEqual([...folders.get("src/a")!], ["src/b"]);
 * ```
 */
export function folderGraph(
  graph: ImportGraph,
  root: string,
): { folders: ImportGraph; witness: Map<string, [string, string]> } {
  const folderOf = (url: string) => {
    const parts = url.slice(root.length).split("/").slice(0, -1);
    return parts.slice(0, 2).join("/") || ".";
  };
  const folders: ImportGraph = new Map();
  const witness = new Map<string, [string, string]>();
  for (const [from, targets] of graph) {
    const a = folderOf(from);
    const edges = folders.get(a) ?? new Set<string>();
    folders.set(a, edges);
    for (const to of targets) {
      const b = folderOf(to);
      if (a === b) continue;
      edges.add(b);
      if (!witness.has(`${a} ${b}`)) witness.set(`${a} ${b}`, [from, to]);
    }
  }
  return { folders, witness };
}

async function defaultEntries(): Promise<string[]> {
  const entries = new Set(DEFAULT_ENTRIES);
  try {
    const config = JSON.parse(await Deno.readTextFile("deno.json"));
    const exports = config.exports;
    const files = typeof exports === "string" ? [exports] : Object.values(exports ?? {});
    for (const file of files) if (typeof file === "string") entries.add(file.replace(/^\.\//, ""));
  } catch (err) {
    if (!(err instanceof Deno.errors.NotFound)) throw err;
  }
  const present: string[] = [];
  for (const entry of entries) {
    try {
      if ((await Deno.stat(entry)).isFile) present.push(entry);
    } catch (err) {
      if (!(err instanceof Deno.errors.NotFound)) throw err;
    }
  }
  return present;
}

async function main(args: string[]): Promise<number> {
  const root = new URL(`file://${Deno.cwd().replace(/\/?$/, "/")}`).href;
  const entries = args.length ? args : await defaultEntries();
  let graph: ImportGraph;
  try {
    graph = await importGraph(entries, root);
  } catch (err) {
    console.error(`Cannot check import cycles: ${(err as Error).message}`);
    return 2;
  }
  const show = (url: string) => decodeURIComponent(url.slice(root.length));
  const cycles = cyclicComponents(graph).flatMap((component) => cyclesOf(graph, component));
  const { folders, witness } = folderGraph(graph, root);
  const folderCycles = cyclicComponents(folders).flatMap((component) => cyclesOf(folders, component));
  const scope = `${graph.size} modules in ${folders.size} folders (from ${entries.join(", ")})`;
  if (cycles.length === 0 && folderCycles.length === 0) {
    console.log(`No import cycles among ${scope}`);
    return 0;
  }
  console.error(`Import cycles among ${scope}:`);
  for (const cycle of cycles) console.error(`  ${cycle.map(show).join(" → ")}`);
  for (const cycle of folderCycles) {
    const hops = cycle.slice(1).map((to, i) => witness.get(`${cycle[i]} ${to}`)!.map(show).join(" → "));
    console.error(`  folders ${cycle.join(" → ")} (${hops.join("; ")})`);
  }
  return 1;
}

if (import.meta.main) Deno.exit(await main(Deno.args));

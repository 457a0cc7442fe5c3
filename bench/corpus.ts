/**
 * The search benchmark corpus, built once into `bench/.cache/` (git-ignored):
 *
 * - `repo/`: a git repository whose `node_modules/` (a pinned list of real npm
 *   packages, about 30,000 files and 300 MB) is `.gitignore`d, and whose
 *   `src/` holds hard links to part of those packages, so a search from the
 *   root has real files to read and a large ignored folder to skip.
 * - `gen/`: a generated tree of {@link GEN_FILES} small files for scale
 *   (`gen-<n>/` for another size, see {@link CorpusOptions.genFiles}).
 *
 * Run `deno run -A bench/corpus.ts` to build it ahead of `deno task bench`.
 *
 * @module
 */
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

/** Packages installed into the corpus, pinned. */
export const PACKAGES: readonly string[] = [
  "typescript@5.6.3",
  "next@14.2.15",
  "react@18.3.1",
  "react-dom@18.3.1",
  "@mui/material@5.16.7",
  "@mui/icons-material@5.16.7",
  "date-fns@3.6.0",
  "three@0.169.0",
  "monaco-editor@0.52.0",
  "rxjs@7.8.1",
  "lodash@4.17.21",
  "core-js@3.38.1",
  "eslint@9.12.0",
  "webpack@5.95.0",
  "@babel/core@7.25.8",
  "prettier@3.3.3",
  "aws-sdk@2.1691.0",
];

/** Packages hard-linked into `repo/src` (searched when the walk starts at the root). */
const LINKED: readonly string[] = ["rxjs", "three", "date-fns", "lodash", "typescript", "@mui/material"];

/** Files in the generated tree. */
export const GEN_FILES = 200_000;

/** Where everything is built. */
export const CACHE_DIR: string = join(dirname(fileURLToPath(import.meta.url)), ".cache");

/** Paths of a built corpus. */
export interface Corpus {
  /** The git repository (node_modules ignored). */
  repo: string;
  /** Its node_modules folder. */
  nodeModules: string;
  /** The generated tree. */
  gen: string;
}

/** Options of {@link ensureCorpus}. */
export interface CorpusOptions {
  /** Build the npm repository (needs npm and the network once). Default true. */
  repo?: boolean;
  /** Build the generated tree. Default true. */
  gen?: boolean;
  /** Files in the generated tree. Default {@link GEN_FILES}. */
  genFiles?: number;
}

/** Builds whatever is missing (of what `options` asks for) and returns the paths. */
export async function ensureCorpus(options: CorpusOptions = {}): Promise<Corpus> {
  const repo = join(CACHE_DIR, "repo");
  const nodeModules = join(repo, "node_modules");
  const files = options.genFiles ?? GEN_FILES;
  const gen = join(CACHE_DIR, files === GEN_FILES ? "gen" : `gen-${files}`);
  if ((options.repo ?? true) && !(await exists(join(repo, ".corpus-done")))) await buildRepo(repo);
  if ((options.gen ?? true) && !(await exists(join(gen, ".corpus-done")))) await buildGen(gen, files);
  return { repo, nodeModules, gen };
}

async function buildRepo(repo: string): Promise<void> {
  await Deno.mkdir(repo, { recursive: true });
  await run("git", ["init", "-q", "."], repo);
  await Deno.writeTextFile(join(repo, ".gitignore"), "node_modules/\n*.log\n");
  await Deno.writeTextFile(
    join(repo, "package.json"),
    JSON.stringify({ name: "paddock-search-corpus", private: true }, null, 2),
  );
  console.error(`corpus: npm install of ${PACKAGES.length} packages into ${repo}`);
  await run("npm", [
    "install",
    "--ignore-scripts",
    "--no-audit",
    "--no-fund",
    "--legacy-peer-deps",
    "--save-exact",
    ...PACKAGES,
  ], repo);
  await Deno.mkdir(join(repo, "src"), { recursive: true });
  for (const pkg of LINKED) {
    await run(
      "cp",
      ["-al", join(repo, "node_modules", pkg), join(repo, "src", pkg.replace("/", "__"))],
      repo,
    );
  }
  await Deno.writeTextFile(join(repo, ".corpus-done"), new Date().toISOString());
}

async function buildGen(gen: string, files: number): Promise<void> {
  console.error(`corpus: generating ${files} files into ${gen}`);
  await Deno.remove(gen, { recursive: true }).catch(() => {});
  const words = ["alpha", "beta", "gamma", "delta", "render", "parse", "token", "stream", "buffer", "index"];
  const exts = ["ts", "js", "json", "md", "txt"];
  let n = 0;
  for (let a = 0; n < files; a++) {
    for (let b = 0; b < 20 && n < files; b++) {
      const dir = join(gen, `pkg${a}`, `mod${b}`, "lib");
      Deno.mkdirSync(dir, { recursive: true });
      for (let c = 0; c < 50 && n < files; c++, n++) {
        const w = words[n % words.length];
        const body = `// file ${n}\nexport function ${w}${n}(x: number): number {\n  return x * ${
          n % 97
        }; // ${w}\n}\n`;
        Deno.writeTextFileSync(join(dir, `${w}_${c}.${exts[n % exts.length]}`), body);
      }
    }
    if (a % 10 === 0) Deno.writeTextFileSync(join(gen, `pkg${a}`, ".gitignore"), "*.log\nbuild/\n");
  }
  await run("git", ["init", "-q", "."], gen);
  await Deno.writeTextFile(join(gen, ".corpus-done"), new Date().toISOString());
}

async function run(cmd: string, args: string[], cwd: string): Promise<void> {
  const out = await new Deno.Command(cmd, { args, cwd, stdout: "inherit", stderr: "inherit", stdin: "null" })
    .output();
  if (!out.success) throw new Error(`${cmd} ${args.slice(0, 3).join(" ")} failed with code ${out.code}`);
}

async function exists(path: string): Promise<boolean> {
  try {
    await Deno.lstat(path);
    return true;
  } catch {
    return false;
  }
}

if (import.meta.main) {
  const c = await ensureCorpus();
  for (const [name, dir] of Object.entries(c)) {
    const out = await new Deno.Command("sh", {
      args: ["-c", `find . -type f | wc -l; du -sh . | cut -f1`],
      cwd: dir,
      stdout: "piped",
    }).output();
    console.log(name, dir, new TextDecoder().decode(out.stdout).trim().replace("\n", " files, "));
  }
}

/**
 * Runs a {@link GrepQuery} on the chosen engine (ripgrep or in process) under
 * a time budget, handing rg-format output lines to a callback that can stop
 * the search early.
 *
 * @module
 */
import { InvalidInputError, PermissionDeniedError, UnavailableError } from "../../errors.ts";
import { JS_ENGINE_DIFFERENCES, jsGrep } from "./js_grep.ts";
import { type GrepQuery, mayRun, rgArgs, streamLines } from "../../search/ripgrep.ts";
import type { SearchEngine } from "../../search/options.ts";

/** Files at most this large are searched in process when the scope is one file (no spawn). */
export const SMALL_FILE_BYTES = 512 * 1024;

/** Where and how to run a query. */
export interface GrepRun {
  /** Engine setting. */
  engine: SearchEngine;
  /** The rg program. */
  rg: string;
  /** Real path of the searched folder or file. */
  root: string;
  /** Stat of `root`. */
  info: Deno.FileInfo;
  /** Time budget (ms). */
  budgetMs: number;
  /** The call's signal. */
  signal: AbortSignal;
  /** Output lines; return false to stop. */
  onLine: (line: string) => boolean | void;
}

/** How a run went. */
export interface GrepOutcome {
  /** Which engine ran. */
  engine: "ripgrep" | "in-process";
  /** Set when the time budget stopped the search. */
  timedOut: boolean;
  /** Notes for the model (fallback, rg warnings). */
  notes: string[];
}

/** Runs the query; throws {@link InvalidInputError} for a bad regex or type, quoting rg. */
export async function runGrep(q: GrepQuery, run: GrepRun): Promise<GrepOutcome> {
  const notes: string[] = [];
  const deadline = performance.now() + run.budgetMs;
  let useRg = run.engine !== "in-process";
  if (useRg && !(await mayRun(run.rg))) {
    if (run.engine === "ripgrep") {
      throw new PermissionDeniedError(`Cannot run ripgrep "${run.rg}": --allow-run for it is not granted`);
    }
    useRg = false;
    notes.push(`ripgrep may not run here (--allow-run for "${run.rg}" is not granted)`);
  }
  if (
    useRg && run.engine === "auto" && run.info.isFile && run.info.size <= SMALL_FILE_BYTES &&
    jsSafe(q.pattern)
  ) {
    useRg = false; // one small file: a spawn costs more than the search
  }
  if (useRg) {
    const timer = new AbortController();
    const t = setTimeout(() => timer.abort(), run.budgetMs);
    const signal = AbortSignal.any([run.signal, timer.signal]);
    try {
      const r = await streamLines(run.rg, rgArgs(q), { cwd: q.cwd, signal, onLine: run.onLine });
      if (run.signal.aborted) throw run.signal.reason;
      if (r.code === 2) rgError(q, r.stderr, notes);
      return { engine: "ripgrep", timedOut: timer.signal.aborted, notes };
    } catch (err) {
      if (!(err instanceof Deno.errors.NotFound) || run.engine === "ripgrep") throw err;
      notes.push(`ripgrep "${run.rg}" was not found`);
    } finally {
      clearTimeout(t);
    }
  }
  if (notes.length) {
    notes[notes.length - 1] += `, so the search ran in process (differences: ${JS_ENGINE_DIFFERENCES})`;
  }
  const r = await jsGrep(q, {
    root: run.root,
    isFile: run.info.isFile,
    onLine: run.onLine,
    deadline,
    signal: run.signal,
  });
  if (run.signal.aborted) throw run.signal.reason;
  return { engine: "in-process", timedOut: r.stopped && performance.now() > deadline, notes };
}

function rgError(q: GrepQuery, stderr: string, notes: string[]): void {
  const text = stderr.replace(/^rg: /gm, "").trim();
  if (
    /regex parse error|not allowed in a regex|look-around|backreferences|error parsing glob|unrecognized file type/i
      .test(text)
  ) {
    const what = /glob/i.test(text)
      ? `Invalid glob "${q.globs.join(" ")}"`
      : /file type/i.test(text)
      ? `Invalid type "${q.type}"`
      : `Invalid regex "${q.pattern}"`;
    throw new InvalidInputError(`${what}: ripgrep says: ${text}`);
  }
  if (text) notes.push(`ripgrep reported: ${text.split("\n").slice(0, 3).join("; ")}`);
  else throw new UnavailableError("ripgrep failed without a message");
}

/** True when a pattern means the same to ripgrep and to JavaScript (plain text and basic operators). */
function jsSafe(pattern: string): boolean {
  return /^[A-Za-z0-9_ .,:;'"=<>\-+*?|()[\]{}^$/#@%&!~`]*$/.test(pattern) && !/\(\?/.test(pattern);
}

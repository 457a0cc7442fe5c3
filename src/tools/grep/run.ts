/**
 * Runs a {@link GrepQuery} on the chosen engine (ripgrep or in process) under
 * a time budget, handing rg-format output lines to a callback that can stop
 * the search early.
 *
 * @module
 */
import { InvalidInputError, PermissionDeniedError, UnavailableError } from "../../errors.ts";
import { JS_ENGINE_DIFFERENCES, jsGrep } from "./js_grep.ts";
import type { JsGrepReply, JsGrepRequest } from "./js_grep_worker.ts";
import { type GrepQuery, mayRun, rgArgs, streamLines } from "../../search/ripgrep.ts";
import type { SearchEngine } from "../../search/options.ts";

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
  // No in-process shortcut for small files when rg may run: a JS regex match cannot be interrupted,
  // and a catastrophic pattern would hold the process past its timeout (P8).
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
  let timedOut: boolean;
  if (Deno.permissions.querySync({ name: "read", path: WORKER_URL }).state === "granted") {
    const budgetMs = Math.max(0, deadline - performance.now());
    timedOut = await jsGrepInWorker({ q, root: run.root, isFile: run.info.isFile, budgetMs }, run);
  } else {
    // no worker without read access to its module: run on this thread, where a match cannot be
    // stopped, so refuse the patterns that can take exponential time
    if (nestsQuantifiers(q.pattern)) {
      throw new InvalidInputError(
        `Cannot search for "${q.pattern}" in process: it repeats a group that itself repeats, which can take exponential time; let ripgrep run (--allow-run) or simplify the pattern`,
      );
    }
    const r = await jsGrep(q, {
      root: run.root,
      isFile: run.info.isFile,
      onLine: run.onLine,
      deadline,
      signal: run.signal,
    });
    timedOut = r.stopped && performance.now() > deadline;
  }
  if (run.signal.aborted) throw run.signal.reason;
  return { engine: "in-process", timedOut, notes };
}

const WORKER_URL = new URL("./js_grep_worker.ts", import.meta.url);

/**
 * Whether a regex repeats a group that contains a repetition (`(a+)+`, `(\w*)*`, `((ab)+){2,}`): the
 * classic shape of catastrophic backtracking. Conservative: escapes and classes are skipped.
 */
export function nestsQuantifiers(pattern: string): boolean {
  const stack: boolean[] = []; // per open group: does it contain a repetition?
  let repeatingGroup = false; // the atom just before is a group that contains a repetition
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i];
    if (c === "\\") i++;
    else if (c === "[") {
      for (i++; i < pattern.length && pattern[i] !== "]"; i++) if (pattern[i] === "\\") i++;
    } else if (c === "(") stack.push(false);
    else if (c === ")") {
      const has = stack.pop() ?? false;
      if (has && stack.length) stack[stack.length - 1] = true;
      repeatingGroup = has;
      continue;
    } else if (c === "*" || c === "+" || c === "{") {
      if (repeatingGroup) return true;
      if (stack.length) stack[stack.length - 1] = true;
    }
    repeatingGroup = false;
  }
  return false;
}

/** Grace for the worker to finish on its own after its deadline, before it is terminated. */
const WORKER_GRACE_MS = 100;

/**
 * Runs the in-process engine in a worker, terminated at the deadline, on the
 * signal or when `onLine` says stop. Resolves to whether the deadline stopped it.
 */
function jsGrepInWorker(req: JsGrepRequest, run: GrepRun): Promise<boolean> {
  const worker = new Worker(WORKER_URL, { type: "module" });
  return new Promise<boolean>((resolve, reject) => {
    let over = false;
    const finish = (fn: () => void) => {
      if (over) return;
      over = true;
      clearTimeout(timer);
      run.signal.removeEventListener("abort", onAbort);
      worker.terminate();
      fn();
    };
    const onAbort = () => finish(() => reject(run.signal.reason));
    const timer = setTimeout(() => finish(() => resolve(true)), req.budgetMs + WORKER_GRACE_MS);
    if (run.signal.aborted) return onAbort();
    run.signal.addEventListener("abort", onAbort, { once: true });
    worker.onmessage = (e: MessageEvent<JsGrepReply>) => {
      const m = e.data;
      if (over) return;
      if ("line" in m) {
        let more: boolean | void;
        try {
          more = run.onLine(m.line);
        } catch (err) {
          return finish(() => reject(err));
        }
        if (more === false) finish(() => resolve(false));
      } else if ("done" in m) {
        finish(() => resolve(m.stopped)); // the worker stops early only at its deadline
      } else {
        const err = m.error.name === "InvalidInputError"
          ? new InvalidInputError(m.error.message)
          : new Error(m.error.message);
        finish(() => reject(err));
      }
    };
    worker.onerror = (e: ErrorEvent) => {
      e.preventDefault();
      finish(() => reject(new Error(`The in-process search failed: ${e.message}`)));
    };
    worker.postMessage(req);
  });
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

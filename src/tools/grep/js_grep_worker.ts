/**
 * Worker side of the in-process Grep engine: runs {@link jsGrep} off the main
 * thread, so a catastrophic regex can be stopped by terminating the worker
 * (a regex match cannot be interrupted from inside). Protocol: one
 * {@link JsGrepRequest} in; `{ line }` messages, then `{ done, stopped }` or
 * `{ error }` out.
 *
 * @module
 */
import type { GrepQuery } from "../../search/ripgrep.ts";
import { jsGrep } from "./js_grep.ts";

/** What the worker is asked to search. */
export interface JsGrepRequest {
  /** The query. */
  q: GrepQuery;
  /** Real path of the folder or file. */
  root: string;
  /** Whether `root` is one file. */
  isFile: boolean;
  /** Time budget left (ms). */
  budgetMs: number;
}

/** A message from the worker. */
export type JsGrepReply =
  | { line: string }
  | { done: true; stopped: boolean }
  | { error: { name: string; message: string } };

// deno-lint-ignore no-explicit-any
const scope = self as any as {
  onmessage: ((e: MessageEvent<JsGrepRequest>) => void) | null;
  postMessage(m: JsGrepReply): void;
};

scope.onmessage = async (e: MessageEvent<JsGrepRequest>) => {
  const { q, root, isFile, budgetMs } = e.data;
  try {
    const r = await jsGrep(q, {
      root,
      isFile,
      deadline: performance.now() + budgetMs,
      onLine: (line) => scope.postMessage({ line }),
    });
    scope.postMessage({ done: true, stopped: r.stopped });
  } catch (err) {
    const { name, message } = err instanceof Error ? err : new Error(String(err));
    scope.postMessage({ error: { name, message } });
  }
};

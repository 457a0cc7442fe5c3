/**
 * The one truncation rule for every tool: past the cap, keep the head and the
 * tail, save the full text to a file, and name that file in the marker.
 *
 * @module
 */

/**
 * Default cap on the text one call gives the model (characters).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { DEFAULT_MAX_OUTPUT_CHARS, truncateOutput } from "./truncate.ts";
 * const cut = truncateOutput(
 *   "x".repeat(DEFAULT_MAX_OUTPUT_CHARS + 1),
 *   DEFAULT_MAX_OUTPUT_CHARS,
 *   () => "/tmp/full.txt",
 * );
 * assert.ok(cut.text.length <= DEFAULT_MAX_OUTPUT_CHARS);
 * ```
 */
export const DEFAULT_MAX_OUTPUT_CHARS = 30_000;

/**
 * What truncation did.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { truncateOutput, type Truncation } from "./truncate.ts";
 * const cut: Truncation = truncateOutput("x".repeat(5000), 1000, () => "/tmp/full-output.txt");
 * assert.equal(cut.truncated?.originalChars, 5000);
 * assert.equal(cut.truncated?.fullOutputPath, "/tmp/full-output.txt");
 * ```
 */
export interface Truncation {
  /** The text for the model (unchanged when under the cap). */
  text: string;
  /** Set when text was cut. */
  truncated?: {
    /** Length of the original text. */
    originalChars: number;
    /** File holding the original text. */
    fullOutputPath: string;
  };
}

/**
 * Caps `text` at `maxChars`, saving the full text with `save` when it cuts.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { truncateOutput } from "./truncate.ts";
 * const r = truncateOutput("x".repeat(100), 40, () => "/tmp/full.txt");
 * assert.ok(r.truncated?.fullOutputPath === "/tmp/full.txt" && r.text.includes("/tmp/full.txt"));
 * ```
 */
export function truncateOutput(text: string, maxChars: number, save: (full: string) => string): Truncation {
  if (text.length <= maxChars) return { text };
  const fullOutputPath = save(text);
  const cut = (kept: number) => text.length - kept;
  const markerFor = (n: number) =>
    `\n\n[… ${n} of ${text.length} characters cut here; the full output is in "${fullOutputPath}": read it with Read (offset, limit) or search it with Grep …]\n\n`;
  const budget = Math.max(0, maxChars - markerFor(text.length).length);
  const head = Math.ceil(budget * 0.6);
  const tail = budget - head;
  const marker = markerFor(cut(head + tail));
  return {
    text: text.slice(0, head) + marker + (tail > 0 ? text.slice(text.length - tail) : ""),
    truncated: { originalChars: text.length, fullOutputPath },
  };
}

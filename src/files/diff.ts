/**
 * A small line diff for Write and Edit results. Written here rather than
 * imported because no mapped dependency has one and the need is narrow: trim
 * the common head and tail, then an LCS table over the changed middle (an
 * edit's middle is a few lines), falling back to "replace the whole middle"
 * when the middle is too large to tabulate.
 *
 * @module
 */

/** One line of a diff hunk. */
export interface DiffLine {
  /** ` ` kept, `-` removed, `+` added. */
  op: " " | "-" | "+";
  /** The line, without its line break. */
  text: string;
}

/** One hunk of a unified diff. */
export interface DiffHunk {
  /** First line in the old text (1-based). */
  oldStart: number;
  /** Lines of the old text in the hunk. */
  oldLines: number;
  /** First line in the new text (1-based). */
  newStart: number;
  /** Lines of the new text in the hunk. */
  newLines: number;
  /** The hunk's lines. */
  lines: DiffLine[];
}

/** Largest middle (old lines × new lines) compared line by line. */
export const MAX_DIFF_CELLS = 4_000_000;
/** Context lines around each change. */
export const DIFF_CONTEXT = 3;

/**
 * Hunks that turn `oldLines` into `newLines`.
 *
 * @example
 * ```ts
 * import { diffLines } from "./diff.ts";
 * const h = diffLines(["a", "b", "c"], ["a", "B", "c"]);
 * console.assert(h.length === 1 && h[0].lines.filter((l) => l.op !== " ").length === 2);
 * ```
 */
export function diffLines(
  oldLines: readonly string[],
  newLines: readonly string[],
  context: number = DIFF_CONTEXT,
): DiffHunk[] {
  let head = 0;
  while (head < oldLines.length && head < newLines.length && oldLines[head] === newLines[head]) head++;
  let tail = 0;
  while (
    tail < oldLines.length - head && tail < newLines.length - head &&
    oldLines[oldLines.length - 1 - tail] === newLines[newLines.length - 1 - tail]
  ) tail++;
  const a = oldLines.slice(head, oldLines.length - tail);
  const b = newLines.slice(head, newLines.length - tail);
  if (a.length === 0 && b.length === 0) return [];
  const middle = a.length * b.length <= MAX_DIFF_CELLS ? lcsOps(a, b) : [
    ...a.map((text) => ({ op: "-" as const, text })),
    ...b.map((text) => ({ op: "+" as const, text })),
  ];
  const ops: DiffLine[] = [
    ...oldLines.slice(Math.max(0, head - context), head).map((text) => ({ op: " " as const, text })),
    ...middle,
    ...oldLines.slice(oldLines.length - tail, oldLines.length - tail + context).map((text) => ({
      op: " " as const,
      text,
    })),
  ];
  return toHunks(ops, Math.max(0, head - context) + 1, Math.max(0, head - context) + 1, context);
}

function lcsOps(a: readonly string[], b: readonly string[]): DiffLine[] {
  const n = a.length, m = b.length;
  if (n === 0) return b.map((text) => ({ op: "+", text }));
  if (m === 0) return a.map((text) => ({ op: "-", text }));
  // table[i][j] = LCS length of a[i..] and b[j..]
  const w = m + 1;
  const table = new Uint32Array((n + 1) * w);
  for (let i = n - 1; i >= 0; i--) {
    for (let j = m - 1; j >= 0; j--) {
      table[i * w + j] = a[i] === b[j]
        ? table[(i + 1) * w + j + 1] + 1
        : Math.max(table[(i + 1) * w + j], table[i * w + j + 1]);
    }
  }
  const out: DiffLine[] = [];
  let i = 0, j = 0;
  while (i < n && j < m) {
    if (a[i] === b[j]) {
      out.push({ op: " ", text: a[i++] });
      j++;
    } else if (table[(i + 1) * w + j] >= table[i * w + j + 1]) out.push({ op: "-", text: a[i++] });
    else out.push({ op: "+", text: b[j++] });
  }
  while (i < n) out.push({ op: "-", text: a[i++] });
  while (j < m) out.push({ op: "+", text: b[j++] });
  return out;
}

/** Groups a run of ops into hunks, splitting where more than 2×context lines are unchanged. */
function toHunks(ops: DiffLine[], oldStart: number, newStart: number, context: number): DiffHunk[] {
  const hunks: DiffHunk[] = [];
  let oldNo = oldStart, newNo = newStart;
  let current: DiffHunk | undefined;
  let keptRun: DiffLine[] = [];
  const flushRun = () => {
    if (!current) return;
    current.lines.push(...keptRun.slice(0, context));
    hunks.push(finish(current));
    current = undefined;
  };
  for (let k = 0; k < ops.length; k++) {
    const op = ops[k];
    if (op.op === " ") {
      keptRun.push(op);
      if (current && keptRun.length > 2 * context) flushRun();
    } else {
      if (!current) {
        const lead = keptRun.slice(-context);
        current = {
          oldStart: oldNo - lead.length,
          newStart: newNo - lead.length,
          oldLines: 0,
          newLines: 0,
          lines: [...lead],
        };
      } else current.lines.push(...keptRun);
      keptRun = [];
      current.lines.push(op);
    }
    if (op.op !== "+") oldNo++;
    if (op.op !== "-") newNo++;
    if (op.op === " " && !current && keptRun.length > context) keptRun.shift();
  }
  flushRun();
  return hunks;
}

function finish(h: DiffHunk): DiffHunk {
  h.oldLines = h.lines.filter((l) => l.op !== "+").length;
  h.newLines = h.lines.filter((l) => l.op !== "-").length;
  return h;
}

/**
 * A unified diff (`---`/`+++` headers and `@@` hunks), or `""` when equal.
 *
 * @example
 * ```ts
 * import { unifiedDiff } from "./diff.ts";
 * const d = unifiedDiff("a\nb\n", "a\nc\n", "f.txt");
 * console.assert(d.includes("@@ -1,2 +1,2 @@") && d.includes("-b") && d.includes("+c"));
 * ```
 */
export function unifiedDiff(oldText: string, newText: string, name: string): string {
  const hunks = diffLines(lines(oldText), lines(newText));
  if (hunks.length === 0) return "";
  const out = [`--- ${name}`, `+++ ${name}`];
  for (const h of hunks) {
    out.push(`@@ -${range(h.oldStart, h.oldLines)} +${range(h.newStart, h.newLines)} @@`);
    for (const l of h.lines) out.push(l.op + l.text);
  }
  return out.join("\n");
}

function range(start: number, count: number): string {
  // an empty range names the line before it, as diff(1) does
  const s = count === 0 ? start - 1 : start;
  return count === 1 ? `${s}` : `${s},${count}`;
}

function lines(text: string): string[] {
  if (text === "") return [];
  const l = text.replaceAll("\r\n", "\n").split("\n");
  if (l[l.length - 1] === "") l.pop();
  return l;
}

/**
 * Line diffs for Write and Edit results: npm `diff` finds the changes, this
 * module keeps Paddock's shape of them (CRLF read as LF, no "No newline at
 * end of file" lines, `---`/`+++` headers with one name). A diff too large
 * or slow to search ({@link MAX_EDIT_LENGTH}, {@link DIFF_TIMEOUT_MS}) shows
 * the changed middle as removed, then added.
 *
 * @module
 */
/** npm `diff`, imported by the first diff: start-up that writes nothing does not pay its 15 ms and 2.4 MiB. */
let npmDiff: Promise<typeof import("diff")> | undefined;

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

/** Context lines around each change. */
export const DIFF_CONTEXT = 3;
/**
 * Most lines removed plus added that a diff searches for; past it the
 * changed middle is shown as removed, then added. npm `diff`'s search grows
 * with the square of this: 1000 takes about 0.1 s.
 */
export const MAX_EDIT_LENGTH = 1_000;
/** Longest a diff may search before it gives up the same way (ms). */
export const DIFF_TIMEOUT_MS = 250;

/**
 * Hunks that turn `oldLines` into `newLines` (lines without their line
 * breaks). The common head and tail are skipped at once; npm `diff`'s Myers
 * diff searches the changed middle.
 *
 * @example
 * ```ts
 * import { diffLines } from "./diff.ts";
 * import assert from "node:assert/strict";
 * const h = await diffLines(["a", "b", "c"], ["a", "B", "c"]);
 * assert.deepEqual(h, [{
 *   oldStart: 1,
 *   oldLines: 3,
 *   newStart: 1,
 *   newLines: 3,
 *   lines: [{ op: " ", text: "a" }, { op: "-", text: "b" }, { op: "+", text: "B" }, { op: " ", text: "c" }],
 * }]);
 * ```
 */
export async function diffLines(
  oldLines: readonly string[],
  newLines: readonly string[],
  context: number = DIFF_CONTEXT,
): Promise<DiffHunk[]> {
  let head = 0;
  while (head < oldLines.length && head < newLines.length && oldLines[head] === newLines[head]) head++;
  let tail = 0;
  while (
    tail < oldLines.length - head && tail < newLines.length - head &&
    oldLines[oldLines.length - 1 - tail] === newLines[newLines.length - 1 - tail]
  ) tail++;
  if (head === oldLines.length && head === newLines.length) return [];
  // the changed middle and the context around it: [from, end) of each side
  const from = Math.max(0, head - context);
  const trail = Math.min(tail, context);
  const oldPart = oldLines.slice(from, oldLines.length - tail + trail);
  const newPart = newLines.slice(from, newLines.length - tail + trail);
  // every line ends in "\n", so no hunk gets a "\ No newline at end of file" line
  const text = (l: readonly string[]) => l.map((line) => `${line}\n`).join("");
  const { structuredPatch } = await (npmDiff ??= import("diff"));
  const patch = structuredPatch("", "", text(oldPart), text(newPart), undefined, undefined, {
    context,
    maxEditLength: MAX_EDIT_LENGTH,
    timeout: DIFF_TIMEOUT_MS,
  });
  if (!patch) return [replaceMiddle(oldPart, newPart, head - from, trail, from + 1)];
  return patch.hunks.map((h) => ({
    oldStart: h.oldStart + from,
    oldLines: h.oldLines,
    newStart: h.newStart + from,
    newLines: h.newLines,
    lines: h.lines.map((l) => ({ op: l[0] as DiffLine["op"], text: l.slice(1) })),
  }));
}

/** One hunk that removes the middle of `oldPart` and adds that of `newPart`, `lead` and `trail` lines kept around it. */
function replaceMiddle(
  oldPart: readonly string[],
  newPart: readonly string[],
  lead: number,
  trail: number,
  start: number,
): DiffHunk {
  const lines: DiffLine[] = [
    ...oldPart.slice(0, lead).map((text) => ({ op: " " as const, text })),
    ...oldPart.slice(lead, oldPart.length - trail).map((text) => ({ op: "-" as const, text })),
    ...newPart.slice(lead, newPart.length - trail).map((text) => ({ op: "+" as const, text })),
    ...oldPart.slice(oldPart.length - trail).map((text) => ({ op: " " as const, text })),
  ];
  return {
    oldStart: start,
    oldLines: oldPart.length,
    newStart: start,
    newLines: newPart.length,
    lines,
  };
}

/**
 * A unified diff (`---`/`+++` headers and `@@` hunks), or `""` when equal.
 *
 * @example
 * ```ts
 * import { unifiedDiff } from "./diff.ts";
 * import assert from "node:assert/strict";
 * assert.equal(await unifiedDiff("a\nb\n", "a\nc\n", "f.txt"), "--- f.txt\n+++ f.txt\n@@ -1,2 +1,2 @@\n a\n-b\n+c");
 * assert.equal(await unifiedDiff("a\r\n", "a", "f.txt"), "");
 * ```
 */
export async function unifiedDiff(oldText: string, newText: string, name: string): Promise<string> {
  const hunks = await diffLines(lines(oldText), lines(newText));
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

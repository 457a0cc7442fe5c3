/**
 * Jupyter notebooks (nbformat 4): rendering cells for Read, and splicing
 * cell edits into the file's text so untouched bytes stay as they were.
 *
 * @module
 */
import { InvalidInputError, NotFoundError } from "../errors.ts";
import type { ImageContent } from "../tool/define_tool.ts";

/** One notebook cell as stored (the fields the tools use). */
export interface NotebookCell {
  /** `code`, `markdown` or `raw`. */
  cell_type: string;
  /** Cell id (nbformat 4.5 and later). */
  id?: string;
  /** The source: one string or a list of lines (each keeping its `\n`). */
  source: string | string[];
  /** Outputs of a code cell. */
  outputs?: Record<string, unknown>[];
  /** Execution count of a code cell. */
  execution_count?: number | null;
  /** Cell metadata. */
  metadata?: Record<string, unknown>;
  /** Anything else the file had. */
  [key: string]: unknown;
}

/** A parsed notebook plus where each cell sits in the text. */
export interface ParsedNotebook {
  /** The notebook's text. */
  text: string;
  /** The cells, parsed. */
  cells: NotebookCell[];
  /** nbformat major and minor version. */
  version: { major: number; minor: number };
  /** `[start, end)` of each cell's JSON in `text`. */
  spans: Array<[number, number]>;
  /** `[start, end)` of the `cells` array in `text`. */
  arraySpan: [number, number];
  /** Indentation put before a cell (empty for compact JSON). */
  cellIndent: string;
  /** One level of indentation (empty for compact JSON). */
  unit: string;
}

/**
 * A cell as Read shows it.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import type { RenderedCell } from "./notebook.ts";
 * const cell: RenderedCell = {
 *   index: 0,
 *   id: "c1",
 *   cellType: "code",
 *   source: "1 + 1",
 *   outputs: ["2"],
 *   executionCount: 1,
 * };
 * assert.equal(`[${cell.executionCount}] ${cell.source} → ${cell.outputs[0]}`, "[1] 1 + 1 → 2");
 * ```
 */
export interface RenderedCell {
  /** 0-based position. */
  index: number;
  /** Cell id, or `cell-N` when the notebook has none. */
  id: string;
  /** `code`, `markdown` or `raw`. */
  cellType: string;
  /** The source as one string. */
  source: string;
  /** Text of the outputs. */
  outputs: string[];
  /** Execution count of a code cell. */
  executionCount?: number | null;
}

/**
 * Parses a notebook, recording the text span of every cell.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { parseNotebook } from "./notebook.ts";
 * const nb = parseNotebook(
 *   '{"cells": [{"cell_type": "markdown", "metadata": {}, "source": "# Hi"}], "nbformat": 4, "nbformat_minor": 5}',
 * );
 * assert.ok(nb.cells.length === 1 && nb.spans.length === 1);
 * ```
 */
export function parseNotebook(text: string, shownPath = "notebook"): ParsedNotebook {
  let doc: Record<string, unknown>;
  try {
    doc = JSON.parse(text);
  } catch (err) {
    throw new InvalidInputError(`"${shownPath}" is not valid notebook JSON: ${(err as Error).message}`);
  }
  if (!doc || typeof doc !== "object" || !Array.isArray(doc.cells)) {
    throw new InvalidInputError(`"${shownPath}" is not a Jupyter notebook: it has no "cells" list`);
  }
  const major = Number(doc.nbformat ?? 4), minor = Number(doc.nbformat_minor ?? 0);
  const scan = new Scanner(text);
  let i = scan.ws(0);
  if (text[i] !== "{") throw new InvalidInputError(`"${shownPath}" is not a JSON object`);
  let arraySpan: [number, number] | undefined;
  const spans: Array<[number, number]> = [];
  let firstKeyIndent = "";
  i = scan.ws(i + 1);
  let first = true;
  while (text[i] !== "}") {
    if (first) firstKeyIndent = indentBefore(text, i);
    first = false;
    const keyEnd = scan.value(i);
    const key = JSON.parse(text.slice(i, keyEnd));
    i = scan.ws(keyEnd);
    i = scan.ws(i + 1); // ':'
    const valueEnd = scan.value(i);
    if (key === "cells") {
      arraySpan = [i, valueEnd];
      let j = scan.ws(i + 1);
      while (text[j] !== "]") {
        const end = scan.value(j);
        spans.push([j, end]);
        j = scan.ws(end);
        if (text[j] === ",") j = scan.ws(j + 1);
      }
    }
    i = scan.ws(valueEnd);
    if (text[i] === ",") i = scan.ws(i + 1);
  }
  const cellIndent = spans.length ? indentBefore(text, spans[0][0]) : firstKeyIndent + firstKeyIndent;
  return {
    text,
    cells: doc.cells as NotebookCell[],
    version: { major, minor },
    spans,
    arraySpan: arraySpan!,
    cellIndent,
    unit: firstKeyIndent,
  };
}

/** Whitespace between the last line break before `pos` and `pos` ("" when on the first line). */
function indentBefore(text: string, pos: number): string {
  const nl = text.lastIndexOf("\n", pos - 1);
  if (nl < 0) return "";
  const ws = text.slice(nl + 1, pos);
  return /^[ \t]*$/.test(ws) ? ws : "";
}

class Scanner {
  constructor(readonly text: string) {}
  ws(i: number): number {
    const t = this.text;
    while (i < t.length && (t[i] === " " || t[i] === "\n" || t[i] === "\r" || t[i] === "\t")) i++;
    return i;
  }
  /** End (exclusive) of the JSON value starting at `i`. */
  value(i: number): number {
    const t = this.text;
    if (t[i] === '"') {
      for (let j = i + 1; j < t.length; j++) {
        if (t[j] === "\\") j++;
        else if (t[j] === '"') return j + 1;
      }
      return t.length;
    }
    if (t[i] === "{" || t[i] === "[") {
      let depth = 0;
      for (let j = i; j < t.length; j++) {
        const c = t[j];
        if (c === '"') j = this.value(j) - 1;
        else if (c === "{" || c === "[") depth++;
        else if (c === "}" || c === "]") {
          if (--depth === 0) return j + 1;
        }
      }
      return t.length;
    }
    let j = i;
    while (j < t.length && !",}] \n\r\t".includes(t[j])) j++;
    return j;
  }
}

/** Serialises a cell as the notebook's own formatting would place it. */
export function serializeCell(nb: ParsedNotebook, cell: NotebookCell): string {
  if (nb.unit === "") return JSON.stringify(cell);
  return JSON.stringify(cell, null, nb.unit).split("\n").join(`\n${nb.cellIndent}`);
}

/** Finds a cell by id or `cell-N`; throws a NotFoundError naming the choices. */
export function findCell(nb: ParsedNotebook, cellId: string, shownPath: string): number {
  const byId = nb.cells.findIndex((c) => c.id === cellId);
  if (byId >= 0) return byId;
  const m = /^cell-(\d+)$/.exec(cellId);
  if (m && Number(m[1]) < nb.cells.length) return Number(m[1]);
  const ids = nb.cells.slice(0, 10).map((c, k) => c.id ?? `cell-${k}`);
  throw new NotFoundError(
    `No cell "${cellId}" in "${shownPath}" (${nb.cells.length} cells): use a cell id or "cell-N" with N from 0 to ${
      nb.cells.length - 1
    }${ids.length ? `, e.g. ${ids.map((x) => `"${x}"`).join(", ")}` : ""}`,
  );
}

/** Source text as one string. */
export function sourceText(source: unknown): string {
  return Array.isArray(source) ? source.join("") : typeof source === "string" ? source : "";
}

/** `text` as a notebook source list (lines keep their `\n`, as Jupyter stores them). */
export function sourceLines(text: string): string[] {
  return text.match(/[^\n]*\n|[^\n]+$/g) ?? [];
}

/** Renders a notebook's cells for Read: text plus the images of its outputs. */
export function renderNotebook(
  nb: ParsedNotebook,
): { text: string; cells: RenderedCell[]; images: ImageContent[] } {
  const images: ImageContent[] = [];
  const cells: RenderedCell[] = nb.cells.map((cell, index) => {
    const outputs: string[] = [];
    for (const out of cell.outputs ?? []) {
      const t = outputText(out, images);
      if (t) outputs.push(t);
    }
    return {
      index,
      id: cell.id ?? `cell-${index}`,
      cellType: cell.cell_type,
      source: sourceText(cell.source),
      outputs,
      ...(cell.cell_type === "code" ? { executionCount: cell.execution_count ?? null } : {}),
    };
  });
  const parts = cells.map((c) => {
    const count = c.executionCount != null ? ` execution_count="${c.executionCount}"` : "";
    const head = `<cell id="${c.id}" index="${c.index}" type="${c.cellType}"${count}>\n${c.source}\n</cell>`;
    const outs = c.outputs.map((o) => `<output cell="${c.id}">\n${o}\n</output>`);
    return [head, ...outs].join("\n");
  });
  return { text: parts.join("\n\n"), cells, images };
}

// deno-lint-ignore no-control-regex
const ANSI = /\x1b\[[0-9;]*[A-Za-z]/g;

function outputText(out: Record<string, unknown>, images: ImageContent[]): string {
  switch (out.output_type) {
    case "stream":
      return sourceText(out.text).replace(/\n$/, "");
    case "error":
      return [`${out.ename}: ${out.evalue}`, ...((out.traceback as string[]) ?? [])].join("\n").replace(
        ANSI,
        "",
      );
    case "execute_result":
    case "display_data": {
      const data = (out.data ?? {}) as Record<string, unknown>;
      for (const mediaType of ["image/png", "image/jpeg", "image/gif", "image/webp"]) {
        const b64 = sourceText(data[mediaType]).replace(/\s+/g, "");
        if (b64) images.push({ data: b64, mediaType });
      }
      if (data["text/plain"] !== undefined) return sourceText(data["text/plain"]).replace(/\n$/, "");
      const kinds = Object.keys(data);
      return kinds.length ? `[${kinds.join(", ")} output]` : "";
    }
    default:
      return "";
  }
}

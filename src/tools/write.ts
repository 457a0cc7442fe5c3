/**
 * Write: creates or overwrites a file atomically. Overwriting needs a Read
 * of the file in this session with no change on disk since.
 *
 * @module
 */
import { z } from "zod";
import { defineTool, type Tool } from "../tool/define_tool.ts";
import { atomicWriteFile, withFileLock } from "../files/atomic_write.ts";
import { openFileInside } from "../files/safe_fs.ts";
import { assertWritable } from "../files/writable.ts";
import { unifiedDiff } from "../files/diff.ts";
import { resolveSafePath } from "../session/workspace.ts";
import { assertFresh, recordWrite } from "../files/read_state.ts";
import { decodeText, encodeText, splitLines, type TextFormat, toLf } from "../files/text.ts";

/**
 * Structured result of Write.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { runTool, Session, ToolRegistry } from "../../mod.ts";
 * import { type WriteData, writeTool } from "./write.ts";
 * const dir = await Deno.realPath(await Deno.makeTempDir());
 * await using session = new Session({ roots: [dir], mode: "acceptEdits" });
 * const r = await runTool(new ToolRegistry([writeTool]), {
 *   name: "Write",
 *   input: { file_path: `${dir}/a.txt`, content: "one\ntwo\n" },
 * }, { session });
 * const data = r.data as WriteData;
 * assert.equal(data.type, "create");
 * assert.equal(data.lines, 2);
 * await Deno.remove(dir, { recursive: true });
 * ```
 */
export interface WriteData {
  /** `create` for a new file, `update` for an overwrite. */
  type: "create" | "update";
  /** The path written (as given, normalised). */
  filePath: string;
  /** Lines in the new content. */
  lines: number;
  /** Bytes written. */
  bytes: number;
  /** Unified diff of the change (updates only; empty when nothing changed). */
  diff?: string;
  /** How the file is stored (kept from the old file on update). */
  format: TextFormat;
}

/**
 * Write's input.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { type WriteInput, writeTool } from "./write.ts";
 * const input: WriteInput = { file_path: "/w/notes.md", content: "# Notes\n" };
 * assert.ok(writeTool.input.safeParse(input).success);
 * ```
 */
export interface WriteInput {
  /** Absolute path of the file. */
  file_path: string;
  /** The whole new content. */
  content: string;
}

const input: z.ZodType<WriteInput> = z.strictObject({
  file_path: z.string().describe("Absolute path of the file to write (parent folders are created)"),
  content: z.string().describe("The whole new content of the file"),
});

/**
 * The Write tool.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { runTool, Session, ToolRegistry } from "../../mod.ts";
 * import { writeTool } from "./write.ts";
 * const dir = await Deno.realPath(await Deno.makeTempDir());
 * await using session = new Session({ roots: [dir] });
 * const r = await runTool(new ToolRegistry([writeTool]), {
 *   name: "Write",
 *   input: { file_path: `${dir}/notes.md`, content: "# Notes\n" },
 * }, { session, approver: () => Promise.resolve(true) });
 * assert.ok(r.ok);
 * assert.equal(await Deno.readTextFile(`${dir}/notes.md`), "# Notes\n");
 * await Deno.remove(dir, { recursive: true });
 * ```
 */
export const writeTool: Tool<WriteInput, WriteData> = defineTool<WriteInput, WriteData>({
  name: "Write",
  description: "Writes a whole file, creating it (and its folders) or replacing it. To replace an existing " +
    "file, Read it first in this session. Prefer Edit for changing part of a file. Use an absolute path.",
  sideEffect: "Mutating",
  input,
  summarize: (i) => i.file_path,
  execute: async (i, ctx) => {
    const safe = resolveSafePath(i.file_path, ctx, { mustExist: false });
    return await withFileLock(safe.real, async () => {
      let old: { bytes: Uint8Array; text: string; format: TextFormat } | undefined;
      try {
        using file = openFileInside(safe.real);
        const info = await file.stat();
        assertWritable(info, safe.requested);
        const bytes = await file.readAll(ctx.signal);
        await assertFresh(ctx.session, safe.real, safe.requested, info, bytes, "write");
        old = { bytes, ...decodeText(bytes) };
      } catch (err) {
        if (!(err instanceof Deno.errors.NotFound)) throw err;
      }
      const format: TextFormat = old?.format ?? { encoding: "utf-8", bom: false, lineEnding: "LF" };
      // a CRLF file stays CRLF when the new content comes with bare LFs
      const content = format.lineEnding === "CRLF" && !i.content.includes("\r")
        ? i.content.replaceAll("\n", "\r\n")
        : i.content;
      const bytes = encodeText(content, format);
      await atomicWriteFile(safe.real, bytes, { signal: ctx.signal, createParents: true });
      await recordWrite(ctx.session, safe.real, bytes);
      const lines = splitLines(content).length;
      if (!old) {
        return {
          text: `Created "${safe.requested}" (${lines} lines)`,
          data: { type: "create", filePath: safe.requested, lines, bytes: bytes.length, format },
        };
      }
      const diff = await unifiedDiff(toLf(old.text), toLf(content), safe.requested);
      return {
        text: `Updated "${safe.requested}" (${lines} lines)${
          diff ? `\n\n${diff}` : ": the content is unchanged"
        }`,
        data: { type: "update", filePath: safe.requested, lines, bytes: bytes.length, diff, format },
      };
    });
  },
});

/** Test helpers for the file tools: a registry with them and a runner that allows edits. */
import { runTool, type ToolCallResult } from "../../src/tool/run_tool.ts";
import { ToolRegistry } from "../../src/tool/registry.ts";
import type { Session } from "../../src/session/session.ts";
import { editTool } from "../../src/tools/edit.ts";
import { notebookEditTool } from "../../src/tools/notebook_edit.ts";
import { readTool } from "../../src/tools/read/read.ts";
import { writeTool } from "../../src/tools/write.ts";

/** A registry holding Read, Write, Edit and NotebookEdit. */
export const fileRegistry: ToolRegistry = new ToolRegistry([readTool, writeTool, editTool, notebookEditTool]);

/** Runs one file tool in `session` with the `all` preset (no approval asked). */
export function runFileTool(
  session: Session,
  name: string,
  input: Record<string, unknown>,
): Promise<ToolCallResult> {
  return runTool(fileRegistry, { name, input }, { session, preset: "all" });
}

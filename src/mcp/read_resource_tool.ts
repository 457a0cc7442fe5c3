/**
 * ReadMcpResource: reads one resource from an MCP server. Text comes back as
 * text; binary contents are saved to a file in the session's output folder,
 * and the file is named in the result.
 *
 * @module
 */
import { z } from "zod";
import { saveMcpBlob } from "./adapter.ts";
import type { McpResourceSource } from "./resources.ts";
import { defineTool, type Tool } from "../tool/define_tool.ts";

/**
 * Input of ReadMcpResource.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { type ReadMcpResourceInput, readMcpResourceTool } from "./read_resource_tool.ts";
 * const input: ReadMcpResourceInput = { server: "docs", uri: "docs://readme" };
 * const source = {
 *   serverNames: [],
 *   listResources: () => Promise.reject(new Error("unused")),
 *   readResource: () => Promise.reject(new Error("unused")),
 * };
 * assert.ok(readMcpResourceTool(source).input.safeParse(input).success);
 * ```
 */
export interface ReadMcpResourceInput {
  /** The server. */
  server: string;
  /** The resource URI. */
  uri: string;
}

const input: z.ZodType<ReadMcpResourceInput> = z.strictObject({
  server: z.string().min(1).describe("Name of the MCP server that offers the resource"),
  uri: z.string().min(1).describe("URI of the resource, as ListMcpResources shows it"),
});

/**
 * One part of a resource, as returned in the structured result.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import type { McpResourcePart } from "./read_resource_tool.ts";
 * const parts: McpResourcePart[] = [
 *   { uri: "docs://readme", mimeType: "text/markdown", text: "# Docs" },
 *   { uri: "docs://logo", mimeType: "image/png", file: "/tmp/paddock/logo.png", bytes: 2048 },
 * ];
 * assert.deepEqual(parts.filter((p) => p.file).map((p) => p.bytes), [2048]);
 * ```
 */
export interface McpResourcePart {
  /** The part's URI. */
  uri: string;
  /** Its media type, when the server gave one. */
  mimeType?: string;
  /** Its text, for text parts. */
  text?: string;
  /** The file it was saved to, for binary parts. */
  file?: string;
  /** Size of a binary part (bytes). */
  bytes?: number;
}

/**
 * The structured result of ReadMcpResource.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { runTool, ToolRegistry } from "../../mod.ts";
 * import { type ReadMcpResourceData, readMcpResourceTool } from "./read_resource_tool.ts";
 * const source = {
 *   serverNames: ["docs"],
 *   listResources: () => Promise.resolve({ resources: [], templates: [], errors: [] }),
 *   readResource: (_server: string, uri: string) =>
 *     Promise.resolve({ contents: [{ uri, mimeType: "text/plain", text: "Hello" }] }),
 * };
 * const r = await runTool(new ToolRegistry([readMcpResourceTool(source)]), {
 *   name: "ReadMcpResource",
 *   input: { server: "docs", uri: "docs://hello" },
 * });
 * assert.equal((r.data as ReadMcpResourceData).contents[0].text, "Hello");
 * ```
 */
export interface ReadMcpResourceData {
  /** The server. */
  server: string;
  /** The URI asked for. */
  uri: string;
  /** The parts. */
  contents: McpResourcePart[];
}

/**
 * Builds ReadMcpResource over a source of MCP servers.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { readMcpResourceTool } from "./read_resource_tool.ts";
 * const tool = readMcpResourceTool({
 *   serverNames: [],
 *   listResources: () => Promise.reject(),
 *   readResource: () => Promise.resolve({ contents: [] }),
 * });
 * assert.ok(tool.name === "ReadMcpResource" && tool.sideEffect === "ReadOnly");
 * ```
 */
export function readMcpResourceTool(
  source: McpResourceSource,
): Tool<ReadMcpResourceInput, ReadMcpResourceData> {
  return defineTool({
    name: "ReadMcpResource",
    description:
      "Reads a resource from a connected MCP server by its URI (see ListMcpResources). Text is returned " +
      "as text; binary content is saved to a file whose path is given in the result.",
    sideEffect: "ReadOnly",
    input,
    summarize: (i) => `${i.server} ${i.uri}`,
    execute: async (i, ctx) => {
      const result = await source.readResource(i.server, i.uri, ctx.signal);
      const parts: McpResourcePart[] = [];
      const text: string[] = [];
      for (const c of result.contents) {
        const head = `${c.uri}${c.mimeType ? ` (${c.mimeType})` : ""}`;
        if ("text" in c && typeof c.text === "string") {
          parts.push({ uri: c.uri, mimeType: c.mimeType, text: c.text });
          text.push(result.contents.length > 1 ? `[${head}]\n${c.text}` : c.text);
        } else if ("blob" in c && typeof c.blob === "string") {
          const file = await saveMcpBlob(ctx.session, i.server, c.uri, c.blob, c.mimeType, ctx.signal);
          const bytes = (await Deno.stat(file)).size;
          parts.push({ uri: c.uri, mimeType: c.mimeType, file, bytes });
          text.push(`[${head}: ${bytes} bytes of binary content saved to "${file}"]`);
        }
      }
      if (text.length === 0) text.push(`Resource "${i.uri}" on MCP server "${i.server}" is empty`);
      return { text: text.join("\n\n"), data: { server: i.server, uri: i.uri, contents: parts } };
    },
  });
}

/**
 * ListMcpResources: the resources (and resource templates) that the
 * configured MCP servers offer.
 *
 * @module
 */
import { z } from "zod";
import { defineTool, type Tool } from "../tool/define_tool.ts";
import type { McpResourceListing, McpResourceSource } from "./resources.ts";

/** Most resources listed in the text for the model; the rest are counted. */
export const MAX_LISTED_RESOURCES = 500;

/**
 * Input of ListMcpResources.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { type ListMcpResourcesInput, listMcpResourcesTool } from "./list_resources_tool.ts";
 * const input: ListMcpResourcesInput = { server: "docs" };
 * const source = {
 *   serverNames: [],
 *   listResources: () => Promise.reject(new Error("unused")),
 *   readResource: () => Promise.reject(new Error("unused")),
 * };
 * assert.ok(listMcpResourcesTool(source).input.safeParse(input).success);
 * ```
 */
export interface ListMcpResourcesInput {
  /** One server to list; all when left out. */
  server?: string;
}

const input: z.ZodType<ListMcpResourcesInput> = z.strictObject({
  server: z.string().min(1).optional().describe(
    "Name of one MCP server to list; leave out to list every server",
  ),
});

/**
 * Builds ListMcpResources over a source of MCP servers.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { listMcpResourcesTool } from "./list_resources_tool.ts";
 * const tool = listMcpResourcesTool({
 *   serverNames: [],
 *   listResources: () => Promise.resolve({ resources: [], templates: [], errors: [] }),
 *   readResource: () => Promise.reject(),
 * });
 * assert.ok(tool.name === "ListMcpResources" && tool.sideEffect === "ReadOnly");
 * ```
 */
export function listMcpResourcesTool(
  source: McpResourceSource,
): Tool<ListMcpResourcesInput, McpResourceListing> {
  return defineTool({
    name: "ListMcpResources",
    description:
      "Lists the resources (files, documents, data) that the connected MCP servers offer, with their URIs " +
      "for ReadMcpResource. Give `server` to list one server only.",
    sideEffect: "ReadOnly",
    input,
    summarize: (i) => i.server ?? "all servers",
    execute: async (i, ctx) => {
      const listing = await source.listResources(i.server, ctx.signal);
      return { text: formatListing(listing, i.server, source.serverNames), data: listing };
    },
  });
}

function formatListing(
  listing: McpResourceListing,
  server: string | undefined,
  names: readonly string[],
): string {
  const lines: string[] = [];
  const shown = listing.resources.slice(0, MAX_LISTED_RESOURCES);
  for (const r of shown) {
    const meta = [r.name !== r.uri ? r.name : "", r.mimeType ?? ""].filter(Boolean).join(", ");
    lines.push(
      `- ${r.uri}${meta ? ` (${meta})` : ""} [server "${r.server}"]${
        r.description ? `: ${oneLine(r.description)}` : ""
      }`,
    );
  }
  if (listing.resources.length > shown.length) {
    lines.push(`… and ${listing.resources.length - shown.length} more: give "server" to narrow the list`);
  }
  if (listing.templates.length) {
    lines.push("", "Resource templates (fill in the {placeholders} to make a URI):");
    for (const t of listing.templates.slice(0, MAX_LISTED_RESOURCES)) {
      lines.push(
        `- ${t.uriTemplate} (${t.name}${t.mimeType ? `, ${t.mimeType}` : ""}) [server "${t.server}"]${
          t.description ? `: ${oneLine(t.description)}` : ""
        }`,
      );
    }
  }
  if (listing.errors.length) {
    lines.push("", "Servers that could not be listed:");
    for (const e of listing.errors) lines.push(`- "${e.server}": ${e.message}`);
  }
  if (listing.resources.length === 0 && listing.templates.length === 0) {
    const where = server !== undefined
      ? `MCP server "${server}"`
      : names.length
      ? `the MCP servers (${names.map((n) => `"${n}"`).join(", ")})`
      : "any MCP server: none is configured";
    lines.unshift(`No resources from ${where}`);
  } else {
    lines.unshift(
      `${listing.resources.length} resource${
        listing.resources.length === 1 ? "" : "s"
      }; read one with ReadMcpResource {server, uri}`,
    );
  }
  return lines.join("\n");
}

function oneLine(s: string): string {
  const t = s.replace(/\s+/g, " ").trim();
  return t.length > 200 ? `${t.slice(0, 197)}...` : t;
}

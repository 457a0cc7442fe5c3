/**
 * What the resource tools (ListMcpResources, ReadMcpResource) need from the
 * MCP servers: a small interface the manager implements, so that the tools
 * and the manager both import it and not each other.
 *
 * @module
 */
import type { ReadResourceResult } from "./_sdk_types.ts";
import type { McpResourceEntry, McpResourceTemplateEntry } from "./client.ts";

/**
 * What the resource tools need from the manager.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { runTool, ToolRegistry } from "../../mod.ts";
 * import { listMcpResourcesTool } from "./list_resources_tool.ts";
 * import type { McpResourceSource } from "./resources.ts";
 * // resources of your own, without an MCP server
 * const source: McpResourceSource = {
 *   serverNames: ["notes"],
 *   listResources: () =>
 *     Promise.resolve({
 *       resources: [{ server: "notes", uri: "notes://today", name: "Today" }],
 *       templates: [],
 *       errors: [],
 *     }),
 *   readResource: (_server, uri) => Promise.resolve({ contents: [{ uri, text: "Buy milk" }] }),
 * };
 * const r = await runTool(new ToolRegistry([listMcpResourcesTool(source)]), {
 *   name: "ListMcpResources",
 *   input: {},
 * });
 * assert.match(r.text, /notes:\/\/today/);
 * ```
 */
export interface McpResourceSource {
  /** Configured server names. */
  readonly serverNames: readonly string[];
  /** Resources and templates of one server or all; failures per server are reported, not thrown. */
  listResources(server: string | undefined, signal?: AbortSignal): Promise<McpResourceListing>;
  /** Reads one resource. */
  readResource(server: string, uri: string, signal?: AbortSignal): Promise<ReadResourceResult>;
}

/**
 * Result of {@link McpResourceSource.listResources}.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import type { McpResourceListing } from "./resources.ts";
 * const listing: McpResourceListing = {
 *   resources: [{ server: "docs", uri: "docs://readme", name: "README" }],
 *   templates: [],
 *   errors: [{ server: "wiki", message: "Not connected" }],
 * };
 * assert.equal(listing.resources.length + listing.errors.length, 2);
 * ```
 */
export interface McpResourceListing {
  /** Resources, by server in config order. */
  resources: McpResourceEntry[];
  /** Resource templates. */
  templates: McpResourceTemplateEntry[];
  /** Servers that could not be listed, with the reason. */
  errors: { server: string; message: string }[];
}

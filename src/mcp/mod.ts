/**
 * MCP both ways: connect to MCP servers and register their tools
 * ({@link attachMcpServers}, {@link McpManager}, {@link McpConnection}, the
 * `.mcp.json` loader), and serve a runtime's tools as an MCP server
 * ({@link serveMcpStdio}, {@link serveMcpHttp}).
 *
 * @example Parse an MCP servers file
 * ```ts
 * import assert from "node:assert/strict";
 * import { parseMcpConfig } from "./mod.ts";
 * const text = '{"mcpServers": {"docs": {"type": "http", "url": "https://example.com/mcp"}}}';
 * const config = parseMcpConfig(text);
 * assert.deepEqual(Object.keys(config.servers), ["docs"]);
 * ```
 *
 * @module
 */
export { attachMcpServers, McpManager, mcpResourceTools } from "./manager.ts";
export type { AttachMcpOptions, McpManagerOptions, McpServerStatus } from "./manager.ts";
export type { McpResourceListing, McpResourceSource } from "./resources.ts";
export { DEFAULT_MCP_CALL_TIMEOUT_MS, DEFAULT_MCP_START_TIMEOUT_MS, McpConnection } from "./client.ts";
export type {
  McpConnectionOptions,
  McpEvent,
  McpResourceEntry,
  McpResourceTemplateEntry,
  McpServerState,
  ReconnectOptions,
} from "./client.ts";
export { loadMcpConfig, parseMcpConfig } from "./config.ts";
export type {
  McpConfig,
  McpHttpServerConfig,
  McpServerConfig,
  McpStdioServerConfig,
  ParseMcpConfigOptions,
} from "./config.ts";
export { adaptMcpTool, mcpToolName } from "./adapter.ts";
export type { McpCallData, McpToolCaller } from "./adapter.ts";
export { createMcpServer, serveMcpHttp, serveMcpStdio } from "./server.ts";
export type { McpHttpOptions, McpHttpServer, McpServerOptions, McpStdioOptions } from "./server.ts";
export { mcpInteraction } from "./interaction.ts";
export { listMcpResourcesTool } from "./list_resources_tool.ts";
export type { ListMcpResourcesInput } from "./list_resources_tool.ts";
export { readMcpResourceTool } from "./read_resource_tool.ts";
export type { McpResourcePart, ReadMcpResourceData, ReadMcpResourceInput } from "./read_resource_tool.ts";

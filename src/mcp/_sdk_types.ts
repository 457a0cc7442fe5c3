/**
 * The MCP SDK types that appear in Paddock's MCP signatures, re-declared by
 * name so the public modules import them from here.
 *
 * Why: `deno doc --lint` reports a type from an npm package as a private type
 * (npm declarations live in a `file:` cache, so Deno's exemption for
 * cross-package types, denoland/deno#27364, does not reach them), and
 * re-exporting the SDK's types would pull the SDK's own internals into the
 * lint. `@internal` on these aliases tells the lint they are documented
 * elsewhere: in `@modelcontextprotocol/sdk`. Nothing here is exported from an
 * entry point.
 *
 * @module
 */
// @ts-types="@modelcontextprotocol/sdk/server/index"
import type { Server as SdkServer } from "@modelcontextprotocol/sdk/server/index.js";
// @ts-types="@modelcontextprotocol/sdk/types"
import type * as sdk from "@modelcontextprotocol/sdk/types.js";

/**
 * The SDK's `CallToolResult`: what `tools/call` answers.
 *
 * @internal
 */
export type CallToolResult = sdk.CallToolResult;

/**
 * The SDK's `ReadResourceResult`: what `resources/read` answers.
 *
 * @internal
 */
export type ReadResourceResult = sdk.ReadResourceResult;

/**
 * The SDK's `Resource`: one entry of `resources/list`.
 *
 * @internal
 */
export type Resource = sdk.Resource;

/**
 * The SDK's `ResourceTemplate`: one entry of `resources/templates/list`.
 *
 * @internal
 */
export type ResourceTemplate = sdk.ResourceTemplate;

/**
 * The SDK's `Tool`: one entry of `tools/list`.
 *
 * @internal
 */
export type McpTool = sdk.Tool;

/**
 * The SDK's `ToolAnnotations`: hints about a tool's side effects.
 *
 * @internal
 */
export type ToolAnnotations = sdk.ToolAnnotations;

/**
 * The SDK's low-level MCP `Server`.
 *
 * @internal
 */
export type Server = SdkServer;

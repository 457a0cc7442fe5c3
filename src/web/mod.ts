/**
 * What the web tools stand on, for programs that configure or extend them:
 * the WebSearch providers (Brave, SearXNG, or your own {@link SearchProvider}),
 * the network guard that keeps requests off private addresses, and the
 * HTML-to-Markdown conversion WebFetch uses.
 *
 * @example Check hosts before a request
 * ```ts
 * import assert from "node:assert/strict";
 * import { hostMatchesDomain, isPrivateAddress } from "./mod.ts";
 * assert.ok(isPrivateAddress("10.0.0.1"));
 * assert.ok(!isPrivateAddress("93.184.216.34"));
 * assert.ok(hostMatchesDomain("docs.deno.com", "deno.com"));
 * ```
 *
 * @module
 */
export type { SearchContext, SearchHit, SearchProvider, SearchRequest } from "./search_provider.ts";
export { resolveSearchProvider, searchProviderHost } from "./choose_provider.ts";
export { braveProvider } from "./brave.ts";
export type { BraveOptions } from "./brave.ts";
export { searxngProvider } from "./searxng.ts";
export type { SearxngOptions } from "./searxng.ts";
export { assertPublicHost, hostMatchesDomain, isPrivateAddress } from "./net_guard.ts";
export type { HostResolver, NetGuardOptions } from "./net_guard.ts";
export { htmlToMarkdown } from "./html_to_markdown.ts";
export type { HtmlConversion, HtmlToMarkdownOptions } from "./html_to_markdown.ts";

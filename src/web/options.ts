/**
 * Options of the web tools (WebFetch and WebSearch), given to
 * `builtinTools({ web })`.
 *
 * @module
 */
import type { HostResolver } from "./net_guard.ts";
import type { SearchProvider } from "./search_provider.ts";

/**
 * What WebFetch hands the model hook: the page and the question asked of it.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import type { WebFetchSummarizeArgs, WebFetchSummarizer } from "./options.ts";
 * const calls: WebFetchSummarizeArgs[] = [];
 * const summarize: WebFetchSummarizer = (args) => {
 *   calls.push(args);
 *   return Promise.resolve(args.content.slice(0, 20));
 * };
 * await summarize({
 *   url: "https://a.example/",
 *   prompt: "Title?",
 *   content: "# A page",
 *   signal: new AbortController().signal,
 * });
 * assert.equal(calls[0].prompt, "Title?");
 * ```
 */
export interface WebFetchSummarizeArgs {
  /** The URL the content came from (after redirects on the same host). */
  url: string;
  /** What the model asked about the page. */
  prompt: string;
  /** The page as Markdown or text, capped at `MAX_SUMMARY_INPUT_CHARS`. */
  content: string;
  /** Aborted when the call is cancelled or times out. */
  signal: AbortSignal;
}

/**
 * Answers a WebFetch prompt over a page, usually with the agent loop's model client.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { createWebFetchTool } from "../tools/web_fetch/web_fetch.ts";
 * import type { WebFetchSummarizer } from "./options.ts";
 * // a real one would ask a small model; this one returns the first line
 * const firstLine: WebFetchSummarizer = ({ content }) => Promise.resolve(content.split("\n")[0]);
 * assert.equal(createWebFetchTool({ summarize: firstLine }).name, "WebFetch");
 * ```
 */
export type WebFetchSummarizer = (args: WebFetchSummarizeArgs) => Promise<string>;

/**
 * Which search provider WebSearch uses, and how to reach it.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { resolveSearchProvider } from "./choose_provider.ts";
 * import type { SearchProviderConfig } from "./options.ts";
 * const search: SearchProviderConfig = { provider: "searxng", baseUrl: "http://127.0.0.1:8888" };
 * assert.equal(resolveSearchProvider({ search }, {}).name, "searxng");
 * ```
 */
export interface SearchProviderConfig {
  /** `brave` (Brave Search API, needs a key) or `searxng` (a SearXNG instance with the JSON format enabled). */
  provider: "brave" | "searxng";
  /** Base URL. Default: `https://api.search.brave.com` for brave; env `SEARXNG_URL` for searxng. */
  baseUrl?: string;
  /** API key (brave). Default: env `BRAVE_API_KEY`, else `BRAVE_SEARCH_API_KEY`. */
  apiKey?: string;
}

/**
 * Options of the web tools. Every field is optional.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { builtinTools } from "../tools/mod.ts";
 * import type { WebToolOptions } from "./options.ts";
 * const web: WebToolOptions = { allowedDomains: ["deno.com"], timeoutMs: 10_000 };
 * assert.ok(builtinTools({ web }).some((t) => t.name === "WebFetch"));
 * ```
 */
export interface WebToolOptions {
  /** When set, only these domains (and their subdomains; `*.x` for subdomains only) may be fetched or listed. Default: any. */
  allowedDomains?: readonly string[];
  /** Domains (and their subdomains) never fetched nor listed. Default none. */
  blockedDomains?: readonly string[];
  /**
   * Hostnames or IP literals reachable although private or local (`127.0.0.1`,
   * `localhost`); `*` allows every private address. Plain `http` to these
   * hosts is kept (local servers rarely speak TLS); every other `http` URL
   * is upgraded to `https`. Default none.
   */
  allowPrivateHosts?: readonly string[];
  /** Time limit of one HTTP request, headers and body (ms). Default 30000. */
  timeoutMs?: number;
  /** Answers WebFetch's `prompt` with a model. Without it WebFetch returns the page's Markdown. */
  summarize?: WebFetchSummarizer;
  /**
   * The search provider: a config or a custom {@link SearchProvider}.
   * Default: from env `PADDOCK_SEARCH_PROVIDER`, else brave when
   * `BRAVE_API_KEY` is set, else searxng when `SEARXNG_URL` is set.
   */
  search?: SearchProviderConfig | SearchProvider;
  /** Resolves hostnames for the private-address check. Default: `Deno.resolveDns`. */
  resolveHost?: HostResolver;
}

/**
 * WebSearch: a web search through the configured provider (Brave Search
 * API or a SearXNG instance), results as title, URL and snippet, filtered
 * by the call's and the options' domain lists.
 *
 * The provider's own URL is set by whoever configures the runtime, not by
 * the model, so it is not put through the private-address guard (a
 * SearXNG instance often runs on localhost).
 *
 * @module
 */
import { z } from "zod";
import { InvalidInputError } from "../errors.ts";
import { defineTool, type Tool } from "../tool/define_tool.ts";
import { resolveSearchProvider } from "../web/choose_provider.ts";
import type { WebToolOptions } from "../web/options.ts";
import type { SearchHit } from "../web/search_provider.ts";
import { hostMatchesDomain } from "../web/net_guard.ts";
import { DEFAULT_WEB_TIMEOUT_MS } from "./web_fetch/web_fetch.ts";

/** Results asked of the provider (before domain filtering). */
export const SEARCH_REQUEST_COUNT = 20;
/** Most results shown to the model. */
export const MAX_SEARCH_RESULTS = 10;

/**
 * The structured result of WebSearch.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { runTool, ToolRegistry } from "../../mod.ts";
 * import { createWebSearchTool, type WebSearchData } from "./web_search.ts";
 * const tool = createWebSearchTool({
 *   search: {
 *     name: "fixed",
 *     search: () => Promise.resolve([{ title: "Deno", url: "https://deno.com/", snippet: "The runtime" }]),
 *   },
 * });
 * const r = await runTool(new ToolRegistry([tool]), { name: "WebSearch", input: { query: "deno" } }, {
 *   approver: () => Promise.resolve(true),
 * });
 * const data = r.data as WebSearchData;
 * assert.equal(data.provider, "fixed");
 * assert.equal(data.results[0].url, "https://deno.com/");
 * ```
 */
export interface WebSearchData {
  /** The query as run. */
  query: string;
  /** The provider's name. */
  provider: string;
  /** Results after filtering, best first. */
  results: SearchHit[];
  /** Results the domain lists removed. */
  filtered: number;
}

/**
 * The input of WebSearch.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { createWebSearchTool, type WebSearchInput } from "./web_search.ts";
 * const input: WebSearchInput = { query: "deno permissions", allowed_domains: ["docs.deno.com"] };
 * assert.ok(createWebSearchTool().input.safeParse(input).success);
 * ```
 */
export interface WebSearchInput {
  /** The search query, at least 2 characters. */
  query: string;
  /** Only results from these domains. */
  allowed_domains?: string[];
  /** No results from these domains. */
  blocked_domains?: string[];
}

const input: z.ZodType<WebSearchInput> = z.strictObject({
  query: z.string().min(2).describe("The search query, at least 2 characters"),
  allowed_domains: z.array(z.string()).optional().describe(
    "Only return results from these domains (subdomains included); not together with blocked_domains",
  ),
  blocked_domains: z.array(z.string()).optional().describe(
    "Never return results from these domains (subdomains included); not together with allowed_domains",
  ),
});

function hostOf(url: string): string | undefined {
  try {
    return new URL(url).hostname;
  } catch {
    return undefined;
  }
}

/** True when `url` passes an allow list (when given) and no block list. */
function keep(url: string, allowed: readonly string[] | undefined, blocked: readonly string[]): boolean {
  const host = hostOf(url);
  if (host === undefined) return false;
  if (blocked.some((d) => hostMatchesDomain(host, d))) return false;
  return !allowed || allowed.some((d) => hostMatchesDomain(host, d));
}

/**
 * Creates the WebSearch tool.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { createWebSearchTool } from "./web_search.ts";
 * const tool = createWebSearchTool({ search: { provider: "searxng", baseUrl: "http://127.0.0.1:8888" } });
 * assert.ok(tool.name === "WebSearch" && tool.sideEffect === "Network");
 * ```
 */
export function createWebSearchTool(options: WebToolOptions = {}): Tool<WebSearchInput, WebSearchData> {
  return defineTool({
    name: "WebSearch",
    description:
      "Searches the web and returns results as title, URL and snippet. Use it for information newer than " +
      "your training or outside the workspace; then read promising pages with WebFetch. Restrict results with " +
      "allowed_domains or exclude sites with blocked_domains (not both).",
    sideEffect: "Network",
    input,
    summarize: (i) => i.query,
    async execute(args, ctx) {
      const query = args.query.trim();
      if (query.length < 2) {
        throw new InvalidInputError(`"query" must have at least 2 characters besides spaces`);
      }
      if (args.allowed_domains?.length && args.blocked_domains?.length) {
        throw new InvalidInputError(
          "Give allowed_domains or blocked_domains, not both: keep the one that says what you want",
        );
      }
      const provider = resolveSearchProvider(options, ctx.env);
      const hits = await provider.search({ query, count: SEARCH_REQUEST_COUNT }, {
        fetch: ctx.fetch,
        signal: ctx.signal,
        timeoutMs: options.timeoutMs ?? DEFAULT_WEB_TIMEOUT_MS,
      });
      const blocked = [...(args.blocked_domains ?? []), ...(options.blockedDomains ?? [])];
      const seen = new Set<string>();
      const kept = hits.filter((h) => {
        if (seen.has(h.url)) return false;
        seen.add(h.url);
        return keep(h.url, args.allowed_domains?.length ? args.allowed_domains : undefined, blocked) &&
          keep(h.url, options.allowedDomains, []);
      });
      const results = kept.slice(0, MAX_SEARCH_RESULTS);
      const filtered = seen.size - kept.length;
      const data: WebSearchData = { query, provider: provider.name, results, filtered };
      if (results.length === 0) {
        const why = filtered ? ` (${filtered} results were outside the domain lists)` : "";
        return { text: `No results for "${query}" from ${provider.name}${why}: try other words`, data };
      }
      const lines = results.map((r, i) =>
        `${i + 1}. ${r.title || r.url}\n   ${r.url}${r.snippet ? `\n   ${r.snippet}` : ""}`
      );
      const note = filtered ? `\n\n(${filtered} results outside the domain lists were left out)` : "";
      return { text: `Results for "${query}" from ${provider.name}:\n\n${lines.join("\n\n")}${note}`, data };
    },
  });
}

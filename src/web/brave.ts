/**
 * Brave Search API provider: `GET /res/v1/web/search?q=&count=` with the
 * `X-Subscription-Token` header; results in `web.results[]` as
 * `{title, url, description}`.
 *
 * @module
 */
import { getSearchJson, plainSnippet, type SearchHit, type SearchProvider } from "./search_provider.ts";

/** Brave's public endpoint. */
export const BRAVE_BASE_URL = "https://api.search.brave.com";
/** Most results Brave returns for one request. */
export const BRAVE_MAX_COUNT = 20;

/**
 * The options {@link braveProvider} takes.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { type BraveOptions, braveProvider } from "./brave.ts";
 * const options: BraveOptions = { apiKey: "BSA-test" };
 * assert.equal(braveProvider(options).name, "brave");
 * ```
 */
export interface BraveOptions {
  /** The subscription token. */
  apiKey: string;
  /** Base URL. Default {@link BRAVE_BASE_URL}. */
  baseUrl?: string;
}

interface BraveResponse {
  web?: { results?: Array<{ title?: unknown; url?: unknown; description?: unknown }> };
}

/**
 * A provider for the Brave Search API.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { braveProvider } from "./brave.ts";
 * assert.equal(braveProvider({ apiKey: "k" }).name, "brave");
 * ```
 */
export function braveProvider(options: BraveOptions): SearchProvider {
  const base = options.baseUrl ?? BRAVE_BASE_URL;
  return {
    name: "brave",
    async search(request, ctx): Promise<SearchHit[]> {
      const url = new URL("res/v1/web/search", base.endsWith("/") ? base : `${base}/`);
      url.searchParams.set("q", request.query);
      url.searchParams.set("count", String(Math.min(Math.max(request.count, 1), BRAVE_MAX_COUNT)));
      const body = await getSearchJson("brave", url, { "x-subscription-token": options.apiKey }, ctx, {
        401: "check BRAVE_API_KEY",
        403: "check BRAVE_API_KEY and the plan it belongs to",
        422: "the API key or a parameter was refused; check BRAVE_API_KEY",
        429: "the rate limit was hit; wait and try again",
      }) as BraveResponse;
      const results = body?.web?.results ?? [];
      return results
        .filter((r) => typeof r.url === "string")
        .map((r) => ({
          title: plainSnippet(r.title),
          url: r.url as string,
          snippet: plainSnippet(r.description),
        }));
    },
  };
}

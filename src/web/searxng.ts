/**
 * SearXNG provider: `GET <instance>/search?q=&format=json`; results in
 * `results[]` as `{url, title, content}`. The instance must list `json` in
 * `search.formats` of its settings.yml (it answers 403 otherwise).
 *
 * @module
 */
import { getSearchJson, plainSnippet, type SearchHit, type SearchProvider } from "./search_provider.ts";

/**
 * The options {@link searxngProvider} takes.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { type SearxngOptions, searxngProvider } from "./searxng.ts";
 * const options: SearxngOptions = { baseUrl: "http://127.0.0.1:8888" };
 * assert.equal(searxngProvider(options).name, "searxng");
 * ```
 */
export interface SearxngOptions {
  /** The instance's base URL (`https://searx.example.org`, `http://127.0.0.1:8888`). */
  baseUrl: string;
}

interface SearxngResponse {
  results?: Array<{ title?: unknown; url?: unknown; content?: unknown }>;
}

/**
 * A provider for a SearXNG instance's JSON API.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { searxngProvider } from "./searxng.ts";
 * assert.equal(searxngProvider({ baseUrl: "http://127.0.0.1:8888" }).name, "searxng");
 * ```
 */
export function searxngProvider(options: SearxngOptions): SearchProvider {
  const base = options.baseUrl.endsWith("/") ? options.baseUrl : `${options.baseUrl}/`;
  return {
    name: "searxng",
    async search(request, ctx): Promise<SearchHit[]> {
      const url = new URL("search", base);
      url.searchParams.set("q", request.query);
      url.searchParams.set("format", "json");
      const body = await getSearchJson("searxng", url, {}, ctx, {
        403: 'the instance refuses the JSON format: add "json" to search.formats in its settings.yml',
        429: "the instance is rate limiting this client; wait or use another instance",
      }) as SearxngResponse;
      const results = Array.isArray(body?.results) ? body.results : [];
      return results
        .filter((r) => typeof r.url === "string")
        .slice(0, request.count)
        .map((r) => ({
          title: plainSnippet(r.title),
          url: r.url as string,
          snippet: plainSnippet(r.content),
        }));
    },
  };
}

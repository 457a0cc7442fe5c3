/**
 * The search-provider interface of WebSearch and what providers share.
 *
 * @module
 */
import { PaddockError } from "../errors.ts";
import { httpGet } from "./http_get.ts";

/**
 * One search result.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import type { SearchHit } from "./search_provider.ts";
 * const hit: SearchHit = {
 *   title: "Deno",
 *   url: "https://deno.com/",
 *   snippet: "The open-source JavaScript runtime",
 * };
 * assert.equal(new URL(hit.url).hostname, "deno.com");
 * ```
 */
export interface SearchHit {
  /** Page title. */
  title: string;
  /** Page URL. */
  url: string;
  /** A short extract, plain text. */
  snippet: string;
}

/**
 * What a provider is asked.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import type { SearchProvider, SearchRequest } from "./search_provider.ts";
 * const echo: SearchProvider = {
 *   name: "echo",
 *   search: (request: SearchRequest) =>
 *     Promise.resolve([{ title: request.query, url: "https://a.example/", snippet: "" }]),
 * };
 * const ctx = { fetch, signal: new AbortController().signal, timeoutMs: 1000 };
 * assert.equal((await echo.search({ query: "deno", count: 5 }, ctx))[0].title, "deno");
 * ```
 */
export interface SearchRequest {
  /** The query. */
  query: string;
  /** How many results to ask for (providers may return fewer or, for SearXNG, a fixed page). */
  count: number;
}

/**
 * What a provider may use.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import type { SearchContext } from "./search_provider.ts";
 * const ctx: SearchContext = {
 *   fetch: () => Promise.resolve(Response.json({ results: [] })),
 *   signal: AbortSignal.timeout(5_000),
 *   timeoutMs: 5_000,
 * };
 * assert.deepEqual(await (await ctx.fetch("https://search.example/?q=deno")).json(), { results: [] });
 * ```
 */
export interface SearchContext {
  /** The fetch to use. */
  fetch: typeof fetch;
  /** Cancels the search. */
  signal: AbortSignal;
  /** Time limit of the request (ms). */
  timeoutMs: number;
}

/**
 * A web search backend.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { runTool, ToolRegistry } from "../../mod.ts";
 * import { createWebSearchTool } from "../tools/web_search.ts";
 * import type { SearchProvider } from "./search_provider.ts";
 * // a provider of your own: here, a fixed list
 * const fixed: SearchProvider = {
 *   name: "fixed",
 *   search: (request) =>
 *     Promise.resolve([{ title: `About ${request.query}`, url: "https://a.example/", snippet: "" }]),
 * };
 * const tool = createWebSearchTool({ search: fixed });
 * const r = await runTool(new ToolRegistry([tool]), { name: "WebSearch", input: { query: "deno" } }, {
 *   approver: () => Promise.resolve(true),
 * });
 * assert.match(r.text, /About deno/);
 * ```
 */
export interface SearchProvider {
  /** Name shown in results and errors (`brave`, `searxng`). */
  readonly name: string;
  /** Runs one search. */
  search(request: SearchRequest, ctx: SearchContext): Promise<SearchHit[]>;
}

/** Largest search API response read (bytes). */
export const MAX_SEARCH_RESPONSE_BYTES = 5 * 1024 * 1024;

/**
 * GETs a search API URL and parses its JSON body; a non-2xx status becomes
 * an error naming the provider, the status and `hint`.
 */
export async function getSearchJson(
  provider: string,
  url: URL,
  headers: Record<string, string>,
  ctx: SearchContext,
  hints: Readonly<Record<number, string>> = {},
): Promise<unknown> {
  const res = await httpGet(url.href, {
    fetch: ctx.fetch,
    signal: ctx.signal,
    timeoutMs: ctx.timeoutMs,
    maxBytes: MAX_SEARCH_RESPONSE_BYTES,
    headers: { accept: "application/json", ...headers },
    redirect: "follow",
  });
  const text = new TextDecoder().decode(res.body);
  if (res.status < 200 || res.status >= 300) {
    const detail = text.replace(/\s+/g, " ").trim().slice(0, 200);
    const hint = hints[res.status] ? `: ${hints[res.status]}` : "";
    throw new PaddockError(
      "execution_failed",
      `The ${provider} search API answered ${res.status} ${res.statusText}${
        detail ? ` (${detail})` : ""
      }${hint}`,
    );
  }
  try {
    return JSON.parse(text);
  } catch {
    throw new PaddockError(
      "execution_failed",
      `The ${provider} search API sent a body that is not JSON: ${text.slice(0, 120).replace(/\s+/g, " ")}`,
    );
  }
}

const ENTITIES: Record<string, string> = {
  amp: "&",
  lt: "<",
  gt: ">",
  quot: '"',
  apos: "'",
  nbsp: " ",
  "#39": "'",
};

/**
 * Plain text from a provider's snippet: tags dropped (Brave marks matches
 * with `<strong>`), common entities decoded, whitespace collapsed.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { plainSnippet } from "./search_provider.ts";
 * assert.equal(plainSnippet("<strong>Deno</strong> &amp; npm"), "Deno & npm");
 * ```
 */
export function plainSnippet(html: unknown): string {
  if (typeof html !== "string") return "";
  return html
    .replace(/<[^>]*>/g, "")
    .replace(/&(#x[0-9a-f]+|#\d+|[a-z]+\d*|#39);/gi, (m, name: string) => {
      const lower = name.toLowerCase();
      if (lower in ENTITIES) return ENTITIES[lower];
      if (lower.startsWith("#x")) return String.fromCodePoint(parseInt(lower.slice(2), 16) || 0xfffd);
      if (lower.startsWith("#")) return String.fromCodePoint(Number(lower.slice(1)) || 0xfffd);
      return m;
    })
    .replace(/\s+/g, " ")
    .trim();
}

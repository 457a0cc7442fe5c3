/**
 * WebFetch's per-session page cache: kept in a session slot, keyed by URL,
 * entries live {@link WEB_FETCH_CACHE_TTL_MS} by the context's clock.
 *
 * @module
 */
import type { ToolContext } from "../../tool/define_tool.ts";
import type { FetchedPage } from "./page.ts";

/** How long a fetched page is reused within a session (ms). */
export const WEB_FETCH_CACHE_TTL_MS = 15 * 60_000;
/** Most pages kept in a session's cache. */
export const MAX_CACHED_PAGES = 32;
/** Most characters of page text kept in a session's cache (oldest pages go first). */
export const MAX_CACHED_CHARS = 40_000_000;

const CACHE_SLOT = "WebFetch.cache";

type CacheEntry = { storedAt: number; page: FetchedPage };

function cacheOf(ctx: ToolContext): Map<string, CacheEntry> {
  return ctx.session.slot(CACHE_SLOT, () => new Map<string, CacheEntry>());
}

/** The cached page for `key`, dropping entries older than {@link WEB_FETCH_CACHE_TTL_MS} first. */
export function cachedPage(ctx: ToolContext, key: string): FetchedPage | undefined {
  const cache = cacheOf(ctx);
  const now = ctx.now();
  for (const [k, e] of cache) {
    if (now - e.storedAt >= WEB_FETCH_CACHE_TTL_MS || now < e.storedAt) cache.delete(k);
  }
  return cache.get(key)?.page;
}

/** Stores a page under `key`, dropping the oldest past {@link MAX_CACHED_PAGES} or {@link MAX_CACHED_CHARS}. */
export function rememberPage(ctx: ToolContext, key: string, page: FetchedPage): void {
  const cache = cacheOf(ctx);
  cache.delete(key);
  cache.set(key, { storedAt: ctx.now(), page });
  const chars = () =>
    [...cache.values()].reduce((n, e) => n + (e.page.kind === "content" ? e.page.content.length : 0), 0);
  while (cache.size > 1 && (cache.size > MAX_CACHED_PAGES || chars() > MAX_CACHED_CHARS)) {
    cache.delete(cache.keys().next().value!);
  }
}

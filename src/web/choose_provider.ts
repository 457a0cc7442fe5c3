/**
 * How WebSearch chooses its provider from options and environment.
 *
 * @module
 */
import { UnavailableError } from "../errors.ts";
import { BRAVE_BASE_URL, braveProvider } from "./brave.ts";
import type { SearchProviderConfig, WebToolOptions } from "./options.ts";
import type { SearchProvider } from "./search_provider.ts";
import { searxngProvider } from "./searxng.ts";

/** How to set a provider up, for the error WebSearch gives when none is configured. */
export const SEARCH_SETUP_HINT: string =
  "set BRAVE_API_KEY (Brave Search API, https://brave.com/search/api/) or SEARXNG_URL (a SearXNG instance with " +
  '"json" in search.formats) in the environment, or pass web.search ({provider: "brave" | "searxng", baseUrl?, apiKey?}) ' +
  "to builtinTools";

/**
 * Picks the provider: `options.search` (a provider object or a config whose
 * missing fields come from env), else env `PADDOCK_SEARCH_PROVIDER`, else
 * brave when `BRAVE_API_KEY` is set, else searxng when `SEARXNG_URL` is.
 * Throws {@link UnavailableError} saying how to configure one.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { resolveSearchProvider } from "./choose_provider.ts";
 * const p = resolveSearchProvider({}, { SEARXNG_URL: "http://127.0.0.1:8888" });
 * assert.equal(p.name, "searxng");
 * ```
 */
export function resolveSearchProvider(
  options: Pick<WebToolOptions, "search">,
  env: Readonly<Record<string, string>>,
): SearchProvider {
  const given = options.search;
  if (given && "search" in given) return given;
  const braveKey = env.BRAVE_API_KEY ?? env.BRAVE_SEARCH_API_KEY;
  let config: SearchProviderConfig | undefined = given;
  if (!config) {
    const named = env.PADDOCK_SEARCH_PROVIDER?.trim().toLowerCase();
    if (named !== undefined && named !== "brave" && named !== "searxng") {
      throw new UnavailableError(
        `PADDOCK_SEARCH_PROVIDER is "${env.PADDOCK_SEARCH_PROVIDER}": use "brave" or "searxng"`,
      );
    }
    if (named) config = { provider: named };
    else if (braveKey) config = { provider: "brave" };
    else if (env.SEARXNG_URL) config = { provider: "searxng" };
    else throw new UnavailableError(`No web search provider is configured: ${SEARCH_SETUP_HINT}`);
  }
  if (config.provider === "brave") {
    const apiKey = config.apiKey ?? braveKey;
    if (!apiKey) {
      throw new UnavailableError(
        "Brave Search needs an API key: set BRAVE_API_KEY in the environment or web.search.apiKey (keys at https://brave.com/search/api/)",
      );
    }
    return braveProvider({ apiKey, baseUrl: config.baseUrl });
  }
  if (config.provider === "searxng") {
    const baseUrl = config.baseUrl ?? env.SEARXNG_URL;
    if (!baseUrl) {
      throw new UnavailableError(
        "SearXNG needs the instance's URL: set SEARXNG_URL in the environment or web.search.baseUrl",
      );
    }
    return searxngProvider({ baseUrl });
  }
  throw new UnavailableError(
    `Unknown search provider "${(config as { provider: string }).provider}": use "brave" or "searxng"`,
  );
}

/**
 * The `host:port` the configured search provider needs in `--allow-net`,
 * or undefined when none is configured (or it is a custom provider object).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { searchProviderHost } from "./choose_provider.ts";
 * assert.equal(searchProviderHost({}, { BRAVE_API_KEY: "k" }), "api.search.brave.com:443");
 * assert.equal(searchProviderHost({}, { SEARXNG_URL: "http://127.0.0.1:8888" }), "127.0.0.1:8888");
 * ```
 */
export function searchProviderHost(
  options: Pick<WebToolOptions, "search">,
  env: Readonly<Record<string, string>>,
): string | undefined {
  let base: string | undefined;
  try {
    const provider = resolveSearchProvider(options, env);
    if (options.search && "search" in options.search) return undefined;
    const config = options.search as SearchProviderConfig | undefined;
    base = provider.name === "brave" ? config?.baseUrl ?? BRAVE_BASE_URL : config?.baseUrl ?? env.SEARXNG_URL;
  } catch {
    return undefined;
  }
  if (!base) return undefined;
  try {
    const url = new URL(base);
    return `${url.hostname}:${url.port || (url.protocol === "https:" ? "443" : "80")}`;
  } catch {
    return undefined;
  }
}

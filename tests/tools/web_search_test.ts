import assert from "node:assert/strict";
import { type RunOptions, runTool, ToolRegistry } from "../../mod.ts";
import { createWebSearchTool, type WebSearchData } from "../../src/tools/web_search.ts";
import type { WebToolOptions } from "../../src/web/options.ts";
import { startServer, type TestServer } from "../_helpers/web_server.ts";
import { tempWorkspace } from "../_helpers/workspace.ts";

const KEY = "test-subscription-token";

/** Brave Search API's web search response, trimmed to the fields real responses carry. */
function braveBody(query: string) {
  return {
    type: "search",
    query: { original: query, more_results_available: true },
    mixed: { type: "mixed", main: [{ type: "web", index: 0, all: false }] },
    web: {
      type: "search",
      family_friendly: true,
      results: [
        {
          type: "search_result",
          subtype: "generic",
          title: "Deno <strong>permissions</strong>",
          url: "https://docs.deno.com/runtime/fundamentals/security/",
          is_source_local: false,
          is_source_both: false,
          description: "Deno is secure by default &amp; asks for <strong>--allow-net</strong>.",
          profile: { name: "Deno", url: "https://docs.deno.com", long_name: "docs.deno.com" },
          language: "en",
          family_friendly: true,
          meta_url: {
            scheme: "https",
            netloc: "docs.deno.com",
            hostname: "docs.deno.com",
            path: "› runtime",
          },
        },
        {
          type: "search_result",
          title: "Permissions in Node.js",
          url: "https://nodejs.org/api/permissions.html",
          description: "Node's permission model.",
          meta_url: { hostname: "nodejs.org" },
        },
        {
          type: "search_result",
          title: "A blog about deno",
          url: "https://blog.example.net/deno",
          description: "Opinions.",
          meta_url: { hostname: "blog.example.net" },
        },
      ],
    },
  };
}

/** A SearXNG instance's `format=json` response. */
function searxngBody(query: string) {
  return {
    query,
    number_of_results: 0,
    results: [
      {
        url: "https://en.wikipedia.org/wiki/Otter",
        title: "Otter - Wikipedia",
        content: "Otters are carnivorous mammals in the subfamily Lutrinae.",
        engine: "wikipedia",
        parsed_url: ["https", "en.wikipedia.org", "/wiki/Otter", "", "", ""],
        template: "default.html",
        engines: ["wikipedia", "duckduckgo"],
        positions: [1, 2],
        score: 4.5,
        category: "general",
      },
      {
        url: "https://www.seaotters.example/facts",
        title: "Sea otter facts",
        content: "They hold hands.",
        engine: "duckduckgo",
        engines: ["duckduckgo"],
        positions: [3],
        score: 1,
        category: "general",
      },
    ],
    answers: [],
    corrections: [],
    infoboxes: [],
    suggestions: ["sea otter"],
    unresponsive_engines: [],
  };
}

function braveServer(): TestServer {
  return startServer((req, url) => {
    if (url.pathname !== "/res/v1/web/search") return new Response("not found", { status: 404 });
    if (req.headers.get("x-subscription-token") !== KEY) {
      return Response.json({
        type: "ErrorResponse",
        error: {
          code: "SUBSCRIPTION_TOKEN_INVALID",
          status: 401,
          detail: "The provided subscription token is invalid.",
        },
      }, { status: 401 });
    }
    return Response.json(braveBody(url.searchParams.get("q") ?? ""));
  });
}

function searxngServer(): TestServer {
  return startServer((_req, url) => {
    if (url.pathname !== "/search") return new Response("not found", { status: 404 });
    if (url.searchParams.get("format") !== "json") {
      return new Response("<html>403 Forbidden</html>", { status: 403 });
    }
    return Response.json(searxngBody(url.searchParams.get("q") ?? ""));
  });
}

async function search(
  options: WebToolOptions,
  input: Record<string, unknown>,
  extra: Partial<RunOptions> = {},
) {
  await using ws = await tempWorkspace();
  return await runTool(new ToolRegistry([createWebSearchTool(options)]), { name: "WebSearch", input }, {
    session: ws.session,
    rules: { allow: ["WebSearch"] },
    ...extra,
  });
}

Deno.test("WebSearch queries the Brave Search API and lists title, URL and snippet", async () => {
  await using srv = braveServer();
  const r = await search({ search: { provider: "brave", baseUrl: srv.base, apiKey: KEY } }, {
    query: "deno permissions",
  });
  assert.ok(r.ok, r.text);
  const req = srv.requests.get("/res/v1/web/search")!;
  const url = new URL(req.url);
  assert.equal(url.searchParams.get("q"), "deno permissions");
  assert.equal(url.searchParams.get("count"), "20");
  assert.equal(req.headers.get("accept"), "application/json");
  const data = r.data as WebSearchData;
  assert.equal(data.provider, "brave");
  assert.deepEqual(data.results[0], {
    title: "Deno permissions",
    url: "https://docs.deno.com/runtime/fundamentals/security/",
    snippet: "Deno is secure by default & asks for --allow-net.",
  });
  assert.match(
    r.text,
    /^Results for "deno permissions" from brave:\n\n1\. Deno permissions\n {3}https:\/\/docs\.deno\.com\/runtime\/fundamentals\/security\/\n {3}Deno is secure by default & asks for --allow-net\.\n\n2\. Permissions in Node\.js/,
  );
});

Deno.test("WebSearch takes the Brave key from BRAVE_API_KEY and reports a refused key", async () => {
  await using srv = braveServer();
  const ok = await search({ search: { provider: "brave", baseUrl: srv.base } }, { query: "deno" }, {
    env: { BRAVE_API_KEY: KEY },
  });
  assert.ok(ok.ok, ok.text);
  const bad = await search({ search: { provider: "brave", baseUrl: srv.base } }, { query: "deno" }, {
    env: { BRAVE_API_KEY: "wrong" },
  });
  assert.equal(bad.ok, false);
  assert.match(
    bad.text,
    /The brave search API answered 401 .*SUBSCRIPTION_TOKEN_INVALID.*: check BRAVE_API_KEY/,
  );
  const missing = await search({ search: { provider: "brave", baseUrl: srv.base } }, { query: "deno" });
  assert.equal(missing.error?.code, "unavailable");
  assert.match(missing.text, /Brave Search needs an API key: set BRAVE_API_KEY/);
});

Deno.test("WebSearch queries a SearXNG instance named by SEARXNG_URL", async () => {
  await using srv = searxngServer();
  const r = await search({}, { query: "otters" }, { env: { SEARXNG_URL: srv.base } });
  assert.ok(r.ok, r.text);
  const url = new URL(srv.requests.get("/search")!.url);
  assert.equal(url.searchParams.get("q"), "otters");
  assert.equal(url.searchParams.get("format"), "json");
  const data = r.data as WebSearchData;
  assert.equal(data.provider, "searxng");
  assert.deepEqual(data.results.map((h) => h.url), [
    "https://en.wikipedia.org/wiki/Otter",
    "https://www.seaotters.example/facts",
  ]);
  assert.match(
    r.text,
    /1\. Otter - Wikipedia\n {3}https:\/\/en\.wikipedia\.org\/wiki\/Otter\n {3}Otters are carnivorous/,
  );
});

Deno.test("WebSearch explains a SearXNG instance that refuses the JSON format", async () => {
  await using srv = startServer(() => new Response("<html>403 Forbidden</html>", { status: 403 }));
  const r = await search({ search: { provider: "searxng", baseUrl: srv.base } }, { query: "otters" });
  assert.equal(r.ok, false);
  assert.match(
    r.text,
    /answered 403 Forbidden .*: the instance refuses the JSON format: add "json" to search\.formats/,
  );
});

Deno.test("WebSearch applies allowed and blocked domains from the call and the options", async () => {
  await using srv = braveServer();
  const options = { search: { provider: "brave" as const, baseUrl: srv.base, apiKey: KEY } };
  const allowed = await search(options, { query: "deno", allowed_domains: ["deno.com"] });
  assert.deepEqual((allowed.data as WebSearchData).results.map((h) => new URL(h.url).hostname), [
    "docs.deno.com",
  ]);
  assert.match(allowed.text, /\(2 results outside the domain lists were left out\)/);
  const blocked = await search(options, { query: "deno", blocked_domains: ["nodejs.org"] });
  assert.deepEqual((blocked.data as WebSearchData).results.map((h) => new URL(h.url).hostname), [
    "docs.deno.com",
    "blog.example.net",
  ]);
  const configured = await search({ ...options, blockedDomains: ["example.net"] }, { query: "deno" });
  assert.equal((configured.data as WebSearchData).results.length, 2);
  const none = await search({ ...options, allowedDomains: ["rust-lang.org"] }, { query: "deno" });
  assert.ok(none.ok);
  assert.match(none.text, /^No results for "deno" from brave \(3 results were outside the domain lists\)/);
  const both = await search(options, {
    query: "deno",
    allowed_domains: ["a.com"],
    blocked_domains: ["b.com"],
  });
  assert.equal(both.error?.code, "invalid_input");
  assert.match(both.text, /not both/);
});

Deno.test("WebSearch without a provider says how to configure one", async () => {
  const r = await search({}, { query: "otters" });
  assert.equal(r.error?.code, "unavailable");
  assert.match(r.text, /No web search provider is configured: set BRAVE_API_KEY .* or SEARXNG_URL/);
  const wrong = await search({}, { query: "otters" }, { env: { PADDOCK_SEARCH_PROVIDER: "bing" } });
  assert.match(wrong.text, /PADDOCK_SEARCH_PROVIDER is "bing": use "brave" or "searxng"/);
});

Deno.test("WebSearch refuses a query shorter than 2 characters", async () => {
  const r = await search({ search: { provider: "searxng", baseUrl: "http://127.0.0.1:9" } }, { query: "x" });
  assert.equal(r.error?.code, "invalid_input");
  assert.match(r.text, /"query"/);
});

Deno.test("WebSearch uses a custom provider object as given", async () => {
  const r = await search({
    search: {
      name: "fixed",
      search: (req) =>
        Promise.resolve([{ title: `About ${req.query}`, url: "https://example.org/", snippet: "" }]),
    },
  }, { query: "anything" });
  assert.ok(r.ok, r.text);
  assert.match(r.text, /1\. About anything\n {3}https:\/\/example\.org\/$/);
});

/**
 * WebFetch: GET a URL, turn it into Markdown, and answer a prompt over it.
 *
 * Order of checks: the URL parses and is http(s) without credentials → http
 * is upgraded to https (except for hosts in `allowPrivateHosts`, local
 * servers that rarely speak TLS) → the domain lists → the 15-minute session
 * cache → the private-address guard (name, then resolved addresses) → the
 * fetch. Deno's `--allow-net=<hosts>` enforces the same hosts underneath.
 *
 * @module
 */
import { z } from "zod";
import { InvalidInputError, PermissionDeniedError } from "../../errors.ts";
import { defineTool, type Tool } from "../../tool/define_tool.ts";
import type { WebToolOptions } from "../../web/options.ts";
import { assertPublicHost, hostMatchesDomain, isAllowedPrivateHost } from "../../web/net_guard.ts";
import { cachedPage, rememberPage } from "./cache.ts";
import { fetchPage, MAX_FETCH_BYTES, MAX_HTML_CONVERT_CHARS } from "./page.ts";

/**
 * Time limit of one HTTP request when the options set none (ms).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { DEFAULT_WEB_TIMEOUT_MS } from "./web_fetch.ts";
 * assert.equal(DEFAULT_WEB_TIMEOUT_MS, 30_000);
 * ```
 */
export const DEFAULT_WEB_TIMEOUT_MS = 30_000;
/** Most characters of a page handed to the summarize hook. */
export const MAX_SUMMARY_INPUT_CHARS = 100_000;

/**
 * The structured result of WebFetch.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { runTool, ToolRegistry } from "../../../mod.ts";
 * import { createWebFetchTool, type WebFetchData } from "./web_fetch.ts";
 * await using server = Deno.serve(
 *   { port: 0, onListen: () => {} },
 *   () =>
 *     new Response("<html><head><title>Hi</title></head><body><h1>Hello</h1></body></html>", {
 *       headers: { "content-type": "text/html" },
 *     }),
 * );
 * const tool = createWebFetchTool({ allowPrivateHosts: ["127.0.0.1"] });
 * const r = await runTool(new ToolRegistry([tool]), {
 *   name: "WebFetch",
 *   input: { url: `http://127.0.0.1:${server.addr.port}/`, prompt: "What is the title?" },
 * }, { approver: () => Promise.resolve(true) });
 * const data = r.data as WebFetchData;
 * assert.equal(data.title, "Hi");
 * assert.equal(data.format, "markdown");
 * ```
 */
export interface WebFetchData {
  /** The URL fetched (after the https upgrade). */
  url: string;
  /** The URL the content came from, or the one that redirected. */
  finalUrl: string;
  /** HTTP status of the last response. */
  status: number;
  /** Set when the page redirected to another host: where to, not followed. */
  redirectUrl?: string;
  /** Media type the server sent. */
  contentType?: string;
  /** Body bytes read. */
  bytes: number;
  /** True when the body passed the 10 MB cap and was cut. */
  bodyTruncated: boolean;
  /** Set when the HTML was longer than `MAX_HTML_CONVERT_CHARS`: its length; only the head was converted. */
  htmlCutFrom?: number;
  /** HTML title. */
  title?: string;
  /** How the body became text. */
  format?: "markdown" | "text" | "pdf";
  /** The page as Markdown or text (uncut). */
  content?: string;
  /** Whether the page came from the session cache. */
  cached: boolean;
  /** Whether the prompt was answered by the summarize hook. */
  answeredByModel: boolean;
  /** The hook's answer. */
  answer?: string;
}

/**
 * The input of WebFetch.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { createWebFetchTool, type WebFetchInput } from "./web_fetch.ts";
 * const input: WebFetchInput = { url: "https://docs.deno.com/runtime/", prompt: "How do I install Deno?" };
 * assert.ok(createWebFetchTool().input.safeParse(input).success);
 * ```
 */
export interface WebFetchInput {
  /** The absolute http or https URL to fetch. */
  url: string;
  /** What to find or extract from the page. */
  prompt: string;
}

const input: z.ZodType<WebFetchInput> = z.strictObject({
  url: z.string().describe("The absolute http or https URL to fetch; http is upgraded to https"),
  prompt: z.string().describe("What to find or extract from the page; answered over the page's content"),
});

/** Checks the URL and returns it, upgraded to https where that applies. */
function prepareUrl(raw: string, options: WebToolOptions): URL {
  let url: URL;
  try {
    url = new URL(raw.trim());
  } catch {
    throw new InvalidInputError(
      `Invalid URL "${raw}": give an absolute http or https URL such as "https://example.com/"`,
    );
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") {
    throw new InvalidInputError(`Cannot fetch "${raw}": only http and https URLs are supported`);
  }
  if (url.username || url.password) {
    throw new InvalidInputError(`Cannot fetch "${raw}": URLs with credentials are refused`);
  }
  url.hash = "";
  if (url.protocol === "http:" && !isAllowedPrivateHost(url.hostname, options.allowPrivateHosts)) {
    url.protocol = "https:";
  }
  return url;
}

/** Throws when the domain lists refuse `host`. */
export function checkDomainLists(
  host: string,
  options: Pick<WebToolOptions, "allowedDomains" | "blockedDomains">,
): void {
  const blocked = options.blockedDomains?.find((d) => hostMatchesDomain(host, d));
  if (blocked !== undefined) {
    throw new PermissionDeniedError(`"${host}" is blocked by the web tools' blockedDomains ("${blocked}")`);
  }
  const allowed = options.allowedDomains;
  if (allowed && !allowed.some((d) => hostMatchesDomain(host, d))) {
    throw new PermissionDeniedError(
      `"${host}" is not in the web tools' allowedDomains (${allowed.map((d) => `"${d}"`).join(", ")})`,
    );
  }
}

function size(bytes: number): string {
  return bytes < 1024
    ? `${bytes} B`
    : bytes < 1024 * 1024
    ? `${(bytes / 1024).toFixed(1)} KB`
    : `${(bytes / 1024 / 1024).toFixed(1)} MB`;
}

/**
 * Creates the WebFetch tool.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { createWebFetchTool } from "./web_fetch.ts";
 * const tool = createWebFetchTool({ allowedDomains: ["deno.com"] });
 * assert.ok(tool.name === "WebFetch" && tool.sideEffect === "Network");
 * ```
 */
export function createWebFetchTool(options: WebToolOptions = {}): Tool<WebFetchInput, WebFetchData> {
  return defineTool({
    name: "WebFetch",
    description:
      "Fetches a web page (HTML, text, JSON, Markdown or PDF) and answers a prompt over its content. " +
      "HTML is converted to Markdown without scripts, styles or navigation. http URLs are upgraded to https. " +
      "A redirect to another host is not followed: the result names the new URL, fetch it with a second call. " +
      "Bodies are capped at 10 MB; pages are cached for 15 minutes. Read-only: it cannot log in or post forms.",
    sideEffect: "Network",
    input,
    summarize: (i) => i.url,
    async execute(args, ctx) {
      const url = prepareUrl(args.url, options);
      checkDomainLists(url.hostname, options);
      const key = url.href;
      let page = cachedPage(ctx, key);
      const fromCache = page !== undefined;
      if (!page) {
        const checkHost = (hostname: string) =>
          assertPublicHost(hostname, {
            allowPrivateHosts: options.allowPrivateHosts,
            resolveHost: options.resolveHost,
            signal: ctx.signal,
          });
        await checkHost(url.hostname);
        page = await fetchPage(key, {
          fetch: ctx.fetch,
          signal: ctx.signal,
          timeoutMs: options.timeoutMs ?? DEFAULT_WEB_TIMEOUT_MS,
          // a redirect to the www. twin is followed: it gets the same checks as the first host
          checkHost: async (hostname) => {
            checkDomainLists(hostname, options);
            await checkHost(hostname);
          },
        });
        rememberPage(ctx, key, page);
      }
      const base = { url: key, cached: fromCache, answeredByModel: false };
      if (page.kind === "redirect") {
        return {
          text: `"${page.fromUrl}" redirects (${page.status}) to another host: "${page.redirectUrl}". ` +
            `WebFetch does not follow redirects across hosts: call WebFetch again with url "${page.redirectUrl}" to fetch it`,
          data: {
            ...base,
            finalUrl: page.fromUrl,
            status: page.status,
            redirectUrl: page.redirectUrl,
            bytes: 0,
            bodyTruncated: false,
          },
        };
      }
      const data: WebFetchData = {
        ...base,
        finalUrl: page.finalUrl,
        status: page.status,
        contentType: page.contentType,
        bytes: page.bytes,
        bodyTruncated: page.bodyTruncated,
        ...(page.htmlCutFrom === undefined ? {} : { htmlCutFrom: page.htmlCutFrom }),
        title: page.title,
        format: page.format,
        content: page.content,
      };
      const head = [
        `URL: ${page.finalUrl}${fromCache ? " (from the 15-minute cache)" : ""}`,
        page.title ? `Title: ${page.title}` : "",
        `Content: ${page.contentType ?? "unknown type"}, ${size(page.bytes)}${
          page.pageCount ? `, ${page.pageCount} PDF pages` : ""
        }`,
        page.bodyTruncated
          ? `Note: the body is larger than ${
            MAX_FETCH_BYTES / 1024 / 1024
          } MB; only the first 10 MB were read`
          : "",
        page.htmlCutFrom !== undefined
          ? `Note: the HTML is ${page.htmlCutFrom} characters long; only the first ${MAX_HTML_CONVERT_CHARS} ` +
            `were converted to Markdown, so the end of the page is missing`
          : "",
      ].filter(Boolean).join("\n");
      const content = page.content.trim() || "(the page has no text content)";
      if (options.summarize) {
        const capped = content.length > MAX_SUMMARY_INPUT_CHARS
          ? `${
            content.slice(0, MAX_SUMMARY_INPUT_CHARS)
          }\n\n[page cut at ${MAX_SUMMARY_INPUT_CHARS} of ${content.length} characters]`
          : content;
        try {
          const answer = await options.summarize({
            url: page.finalUrl,
            prompt: args.prompt,
            content: capped,
            signal: ctx.signal,
          });
          return { text: `${head}\n\n${answer}`, data: { ...data, answeredByModel: true, answer } };
        } catch (err) {
          if (ctx.signal.aborted) throw ctx.signal.reason;
          const why = err instanceof Error ? err.message : String(err);
          return {
            text:
              `${head}\nNote: the model could not answer the prompt (${why}); the page follows\n\n${content}`,
            data,
          };
        }
      }
      return { text: `${head}\n\n${content}`, data };
    },
  });
}

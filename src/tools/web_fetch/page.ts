/**
 * WebFetch's network half: GET a URL, follow redirects on the same host,
 * report those to another host, cap the body, and turn it into text (HTML
 * to Markdown, text and JSON as they are, PDF through the same extraction
 * as Read).
 *
 * @module
 */
import { InvalidInputError, NotFoundError, PaddockError } from "../../errors.ts";
import { htmlToMarkdown } from "../../web/html_to_markdown.ts";
import { httpGet } from "../../web/http_get.ts";
import { extractPdfPages } from "../../files/pdf.ts";

/** Largest body WebFetch reads (bytes). */
export const MAX_FETCH_BYTES = 10 * 1024 * 1024;
/** Most same-host redirects followed for one fetch. */
export const MAX_REDIRECTS = 10;
/** Most PDF pages extracted for one fetch. */
export const MAX_PDF_PAGES = 100;
/**
 * Most characters of HTML handed to turndown. Conversion is synchronous and
 * cannot be aborted (about 1 s per MB of markup), so a longer page is cut
 * here first, at a tag boundary, and the result says so.
 */
export const MAX_HTML_CONVERT_CHARS = 2 * 1024 * 1024;

const ACCEPT =
  "text/markdown, text/html;q=0.9, application/xhtml+xml;q=0.9, text/plain;q=0.8, application/pdf;q=0.8, */*;q=0.5";
const USER_AGENT = "Paddock-WebFetch/0.1 (Deno agent runtime)";

/** A fetched page turned into text. */
export interface PageContent {
  /** Always `content`. */
  kind: "content";
  /** The URL asked for. */
  url: string;
  /** The URL the content came from (after same-host redirects). */
  finalUrl: string;
  /** HTTP status. */
  status: number;
  /** Media type without parameters, when the server sent one. */
  contentType?: string;
  /** Body size read (bytes). */
  bytes: number;
  /** True when the body was longer than {@link MAX_FETCH_BYTES} and cut there. */
  bodyTruncated: boolean;
  /** How the body was turned into text. */
  format: "markdown" | "text" | "pdf";
  /** The HTML title, when there is one. */
  title?: string;
  /** Pages in the PDF, for PDFs. */
  pageCount?: number;
  /** For HTML longer than {@link MAX_HTML_CONVERT_CHARS}: its length in characters (only the head was converted). */
  htmlCutFrom?: number;
  /** The text. */
  content: string;
}

/** A redirect to another host, reported instead of followed. */
export interface PageRedirect {
  /** Always `redirect`. */
  kind: "redirect";
  /** The URL asked for. */
  url: string;
  /** The URL that redirected (after same-host redirects). */
  fromUrl: string;
  /** Where it points. */
  redirectUrl: string;
  /** The redirect status (301, 302, 303, 307, 308). */
  status: number;
}

/** What {@link fetchPage} returns. */
export type FetchedPage = PageContent | PageRedirect;

/** The options {@link fetchPage} takes. */
export interface FetchPageOptions {
  /** The fetch to use. */
  fetch: typeof fetch;
  /** Cancels the fetch. */
  signal: AbortSignal;
  /** Time limit of each request (ms). */
  timeoutMs: number;
  /** Checks a host a same-host redirect moves to when its name differs (`www.`); throws to refuse it. */
  checkHost?: (hostname: string) => Promise<void>;
}

/** True when `to` is on the same host as `from` (a `www.` prefix ignored) and not a downgrade to http. */
export function isSameHost(from: URL, to: URL): boolean {
  const bare = (u: URL) => u.host.replace(/^www\./, "");
  if (from.protocol === "https:" && to.protocol !== "https:") return false;
  return bare(from) === bare(to);
}

/** GETs a page, following same-host redirects, and converts it. */
export async function fetchPage(url: string, options: FetchPageOptions): Promise<FetchedPage> {
  let current = new URL(url);
  for (let hop = 0;; hop++) {
    const res = await httpGet(current.href, {
      ...options,
      maxBytes: MAX_FETCH_BYTES,
      headers: { accept: ACCEPT, "user-agent": USER_AGENT },
    });
    if (res.status >= 300 && res.status < 400 && res.headers.has("location")) {
      const next = new URL(res.headers.get("location")!, current);
      if (!isSameHost(current, next)) {
        return { kind: "redirect", url, fromUrl: current.href, redirectUrl: next.href, status: res.status };
      }
      if (hop + 1 > MAX_REDIRECTS) {
        throw new PaddockError(
          "execution_failed",
          `"${url}" redirected more than ${MAX_REDIRECTS} times: last to "${next.href}"`,
        );
      }
      if (next.hostname !== current.hostname) await options.checkHost?.(next.hostname);
      current = next;
      continue;
    }
    if (res.status === 404 || res.status === 410) {
      throw new NotFoundError(`"${current.href}" answered ${res.status} ${res.statusText}: check the URL`);
    }
    if (res.status < 200 || res.status >= 300) {
      const detail = decode(res.body.subarray(0, 4096), undefined).replace(/<[^>]*>/g, " ").replace(
        /\s+/g,
        " ",
      ).trim();
      throw new PaddockError(
        "execution_failed",
        `"${current.href}" answered ${res.status} ${res.statusText}${
          detail ? `: ${detail.slice(0, 200)}` : ""
        }`,
      );
    }
    const header = res.headers.get("content-type") ?? "";
    const converted = await convertBody(res.body, header, current.href, res.truncated, options.signal);
    return {
      kind: "content",
      url,
      finalUrl: current.href,
      status: res.status,
      contentType: mediaType(header),
      bytes: res.body.length,
      bodyTruncated: res.truncated,
      ...converted,
    };
  }
}

function mediaType(header: string): string | undefined {
  const mt = header.split(";")[0].trim().toLowerCase();
  return mt || undefined;
}

function charsetOf(header: string, body: Uint8Array): string | undefined {
  const m = /charset\s*=\s*"?([^";\s]+)/i.exec(header);
  if (m) return m[1];
  const head = new TextDecoder("latin1").decode(body.subarray(0, 2048));
  return /<meta[^>]+charset\s*=\s*["']?([A-Za-z0-9_:.-]+)/i.exec(head)?.[1];
}

function decode(body: Uint8Array, charset: string | undefined): string {
  try {
    return new TextDecoder(charset ?? "utf-8").decode(body);
  } catch {
    return new TextDecoder().decode(body);
  }
}

function isTextType(mt: string): boolean {
  return mt.startsWith("text/") || /^application\/([a-z0-9.+-]*\+)?(json|xml)$/.test(mt) ||
    [
      "application/javascript",
      "application/x-ndjson",
      "application/yaml",
      "application/x-yaml",
      "application/toml",
    ]
      .includes(mt);
}

function startsWith(body: Uint8Array, text: string): boolean {
  return text.split("").every((c, i) => body[i] === c.charCodeAt(0));
}

type Converted = Pick<PageContent, "format" | "title" | "pageCount" | "htmlCutFrom" | "content">;

/** The head of `html` within {@link MAX_HTML_CONVERT_CHARS}, not ending inside a tag. */
function capHtml(html: string): string {
  if (html.length <= MAX_HTML_CONVERT_CHARS) return html;
  const head = html.slice(0, MAX_HTML_CONVERT_CHARS);
  const open = head.lastIndexOf("<");
  return open > head.lastIndexOf(">") ? head.slice(0, open) : head;
}

async function convertBody(
  body: Uint8Array,
  header: string,
  url: string,
  truncated: boolean,
  signal: AbortSignal,
): Promise<Converted> {
  const mt = mediaType(header) ?? "";
  if (mt === "application/pdf" || startsWith(body, "%PDF-")) {
    if (truncated) {
      throw new InvalidInputError(
        `The PDF at "${url}" is larger than the ${
          MAX_FETCH_BYTES / 1024 / 1024
        } MB cap: download it another way`,
      );
    }
    const { pageCount, pages } = await extractPdfPages(body, { last: MAX_PDF_PAGES, signal });
    const more = pageCount > pages.length ? `\n\n(${pageCount - pages.length} more pages not extracted)` : "";
    const content = pages.map((p) => `--- Page ${p.page} ---\n${p.text}`).join("\n\n") + more;
    return { format: "pdf", pageCount, content };
  }
  const text = decode(body, charsetOf(header, body));
  const sniffHtml = (mt === "" || mt === "application/octet-stream") &&
    /^\s*<(!doctype html|html[\s>])/i.test(text);
  if (mt === "text/html" || mt === "application/xhtml+xml" || sniffHtml) {
    const { markdown, title } = await htmlToMarkdown(capHtml(text), { baseUrl: url });
    signal.throwIfAborted();
    const cut = text.length > MAX_HTML_CONVERT_CHARS ? { htmlCutFrom: text.length } : {};
    return { format: "markdown", title, content: markdown, ...cut };
  }
  if (
    isTextType(mt) ||
    (!body.subarray(0, 8000).includes(0) && (mt === "" || mt === "application/octet-stream"))
  ) {
    return { format: "text", content: text };
  }
  throw new InvalidInputError(
    `"${url}" is ${
      mt || "binary content"
    }, which WebFetch cannot turn into text: it reads HTML, text, JSON, Markdown and PDF`,
  );
}

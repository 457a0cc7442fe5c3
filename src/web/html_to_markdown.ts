/**
 * HTML to Markdown with turndown, for WebFetch.
 *
 * Under Deno, `npm:turndown` resolves to its Node build (the package's
 * `main`), which parses HTML with its own dependency `@mixmark-io/domino`;
 * the `browser` build that expects a global `DOMParser` is never loaded.
 * So no DOM library is added here. domino parses only: it runs no scripts
 * and loads nothing.
 *
 * Dropped: scripts, styles, embedded objects, forms' controls, navigation
 * chrome (`nav`, page-level `header`/`footer`/`aside`, ARIA navigation,
 * banner and contentinfo roles) and hidden elements. Links and images are
 * made absolute against the page's URL so the model can fetch them;
 * `data:` images keep only their alt text.
 *
 * turndown (and domino) are imported on the first conversion, not with this
 * module: a process that never converts a page does not pay for them.
 *
 * @module
 */

/**
 * What {@link htmlToMarkdown} returns.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { type HtmlConversion, htmlToMarkdown } from "./html_to_markdown.ts";
 * const page: HtmlConversion = await htmlToMarkdown("<title>Docs</title><h1>Install</h1>");
 * assert.equal(page.title, "Docs");
 * assert.match(page.markdown, /# Install/);
 * ```
 */
export interface HtmlConversion {
  /** The page as Markdown. */
  markdown: string;
  /** The `<title>` text, when there is one. */
  title?: string;
}

/**
 * The options {@link htmlToMarkdown} takes.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { htmlToMarkdown, type HtmlToMarkdownOptions } from "./html_to_markdown.ts";
 * const options: HtmlToMarkdownOptions = { baseUrl: "https://docs.deno.com/runtime/" };
 * const { markdown } = await htmlToMarkdown('<a href="install">Install</a>', options);
 * assert.match(markdown, /https:\/\/docs\.deno\.com\/runtime\/install/);
 * ```
 */
export interface HtmlToMarkdownOptions {
  /** The page's URL, to make relative links absolute. Default: links kept as written. */
  baseUrl?: string;
}

const DROPPED_TAGS = [
  "script",
  "style",
  "noscript",
  "template",
  "iframe",
  "object",
  "embed",
  "svg",
  "canvas",
  "nav",
  "link",
  "meta",
  "button",
  "select",
  "input",
  "textarea",
] as const;

const CHROME_ROLES = new Set(["navigation", "banner", "contentinfo", "search", "menu", "menubar", "dialog"]);
const PAGE_CHROME_TAGS = new Set(["HEADER", "FOOTER", "ASIDE"]);

// deno-lint-ignore no-explicit-any
type DomNode = any;

/** The slice of turndown's API used here (the package ships no types; this avoids adding `@types/turndown`). */
interface Turndown {
  remove(filter: readonly string[] | ((node: DomNode) => boolean)): Turndown;
  addRule(key: string, rule: {
    filter: readonly string[] | ((node: DomNode) => boolean);
    replacement: (content: string, node: DomNode) => string;
  }): Turndown;
  turndown(html: string): string;
}

type TurndownClass = new (options: Record<string, unknown>) => Turndown;

let turndownClass: TurndownClass | undefined;
let loading: Promise<TurndownClass> | undefined;

/** Imports turndown once. */
function loadTurndown(): Promise<TurndownClass> {
  loading ??= import("turndown").then((m) => (turndownClass = m.default as unknown as TurndownClass));
  return loading;
}

function isChrome(node: DomNode): boolean {
  if (node.nodeType !== 1) return false;
  const role = String(node.getAttribute?.("role") ?? "").toLowerCase();
  if (CHROME_ROLES.has(role)) return true;
  if (node.hasAttribute?.("hidden") || node.getAttribute?.("aria-hidden") === "true") return true;
  // a header or footer inside an article or main is content (the article's title, its byline)
  return PAGE_CHROME_TAGS.has(node.nodeName) && !node.closest?.("article, main");
}

function absolute(href: string, baseUrl: string | undefined): string {
  if (!baseUrl) return href;
  try {
    return new URL(href, baseUrl).href;
  } catch {
    return href;
  }
}

function escapeTitle(title: string): string {
  return title.replace(/"/g, '\\"').replace(/\s+/g, " ").trim();
}

function createService(
  TurndownService: TurndownClass,
  options: HtmlToMarkdownOptions,
  found: { title?: string },
): Turndown {
  const service = new TurndownService({
    headingStyle: "atx",
    codeBlockStyle: "fenced",
    bulletListMarker: "-",
    emDelimiter: "*",
  });
  service.remove([...DROPPED_TAGS]);
  service.remove((node) => isChrome(node));
  service.addRule("listItem", {
    filter: ["li"],
    replacement: (content, node) => {
      const parent = node.parentNode;
      let prefix = "- ";
      if (parent?.nodeName === "OL") {
        const start = Number(parent.getAttribute("start") ?? 1) || 1;
        prefix = `${start + Array.prototype.indexOf.call(parent.children, node)}. `;
      }
      const body = content.replace(/^\n+/, "").replace(/\n+$/, "\n").replace(
        /\n/gm,
        `\n${" ".repeat(prefix.length)}`,
      );
      return prefix + body + (node.nextSibling && !/\n$/.test(body) ? "\n" : "");
    },
  });
  service.addRule("title", {
    filter: ["title"],
    replacement: (_content, node) => {
      found.title ??= node.textContent?.replace(/\s+/g, " ").trim() || undefined;
      return "";
    },
  });
  service.addRule("absoluteLink", {
    filter: (node) => node.nodeName === "A" && Boolean(node.getAttribute("href")),
    replacement: (content, node) => {
      const el = node;
      const href = absolute(String(el.getAttribute("href")), options.baseUrl);
      if (href.toLowerCase().startsWith("javascript:")) return content;
      const title = el.getAttribute("title") ? ` "${escapeTitle(String(el.getAttribute("title")))}"` : "";
      const text = content.trim();
      return text ? `[${text}](${href.replace(/[()]/g, (c) => encodeURIComponent(c))}${title})` : "";
    },
  });
  service.addRule("absoluteImage", {
    filter: ["img"],
    replacement: (_content, node) => {
      const el = node;
      const alt = String(el.getAttribute("alt") ?? "").replace(/\s+/g, " ").trim();
      const src = String(el.getAttribute("src") ?? "");
      if (!src || src.startsWith("data:")) return alt;
      return `![${alt.replace(/[[\]]/g, "\\$&")}](${absolute(src, options.baseUrl)})`;
    },
  });
  return service;
}

/**
 * Converts an HTML page to Markdown, dropping scripts, styles and
 * navigation chrome. The first call imports turndown; once it is loaded the
 * conversion runs before the call returns.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { htmlToMarkdown } from "./html_to_markdown.ts";
 * const { markdown, title } = await htmlToMarkdown(
 *   "<title>Hi</title><nav>menu</nav><h1>Hello</h1><p><a href='/a'>A</a></p>",
 *   { baseUrl: "https://example.com/x/" },
 * );
 * assert.ok(title === "Hi" && markdown === "# Hello\n\n[A](https://example.com/a)");
 * ```
 */
export async function htmlToMarkdown(
  html: string,
  options: HtmlToMarkdownOptions = {},
): Promise<HtmlConversion> {
  const TurndownService = turndownClass ?? await loadTurndown();
  const found: { title?: string } = {};
  const markdown = createService(TurndownService, options, found).turndown(html).replace(/\n{3,}/g, "\n\n")
    .trim();
  return { markdown, title: found.title };
}

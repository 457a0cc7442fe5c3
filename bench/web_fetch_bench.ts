// HTML → Markdown for WebFetch: our conversion (chrome dropped, links made
// absolute, custom list and image rules) against plain turndown as baseline.
//   deno bench -A bench/web_fetch_bench.ts
import TurndownService from "turndown";
import { htmlToMarkdown } from "../src/web/html_to_markdown.ts";

const section = (i: number) =>
  `<section><h2>Section ${i}</h2><p>Some <strong>bold</strong> text and a <a href="/page/${i}">relative link</a>.</p>` +
  `<ul><li>one</li><li>two <em>three</em></li></ul><pre><code>const x = ${i};</code></pre>` +
  `<img src="/img/${i}.png" alt="figure ${i}"><script>track(${i})</script></section>`;
const page = `<!doctype html><html><head><title>Bench</title><style>p{}</style></head><body>` +
  `<nav>${"<a href='/x'>menu</a>".repeat(50)}</nav><main>${
    Array.from({ length: 800 }, (_, i) => section(i)).join("")
  }` +
  `</main><footer>footer</footer></body></html>`;
const plain = new (TurndownService as unknown as new () => { turndown(html: string): string })();

Deno.bench({
  name: `plain turndown (${Math.round(page.length / 1024)} KB page)`,
  group: "html-to-markdown",
  baseline: true,
  fn: () => void plain.turndown(page),
});
Deno.bench({
  name: `htmlToMarkdown (${Math.round(page.length / 1024)} KB page)`,
  group: "html-to-markdown",
  fn: () => void htmlToMarkdown(page, { baseUrl: "https://example.com/docs/" }),
});

import assert from "node:assert/strict";
import { builtinTools, createRuntime, type RunOptions, runTool, ToolRegistry } from "../../../mod.ts";
import { toDenoFlags } from "../../../src/permissions/mod.ts";
import { createWebFetchTool, type WebFetchData } from "../../../src/tools/web_fetch/web_fetch.ts";
import { isSameHost, MAX_FETCH_BYTES, MAX_HTML_CONVERT_CHARS } from "../../../src/tools/web_fetch/page.ts";
import type { WebToolOptions } from "../../../src/web/options.ts";
import { bigBody, makePdf, startServer, type TestServer } from "../../_helpers/web_server.ts";
import { tempWorkspace } from "../../_helpers/workspace.ts";

const LOCAL = ["127.0.0.1"];

const PAGE = `<!doctype html><html><head><title>Field guide</title>
<style>body { color: red }</style><script>alert("tracking")</script></head>
<body><header><a href="/">Site home</a></header><nav><a href="/menu">Menu item</a></nav>
<main><article><header><h1>Otters</h1></header>
<p>Otters hold hands while <strong>sleeping</strong>. See <a href="/docs/more">more facts</a>.</p>
<ul><li>River otter</li><li>Sea otter</li></ul>
<pre><code>otter.swim()</code></pre></article></main>
<aside>Related ads</aside><footer>Copyright footer</footer></body></html>`;

const HUGE_HTML = `<html><head><title>Huge</title></head><body><h1>First heading</h1>${
  "<p>Filler paragraph with <b>bold</b> words.</p>".repeat(Math.ceil(5 * 1024 * 1024 / 45))
}<h2>Last heading</h2></body></html>`;

function pageServer(): TestServer {
  return startServer((_req, url, srv) => {
    switch (url.pathname) {
      case "/page":
        return new Response(PAGE, { headers: { "content-type": "text/html; charset=utf-8" } });
      case "/same":
        return new Response(null, { status: 302, headers: { location: "/hop" } });
      case "/hop":
        return new Response(null, { status: 301, headers: { location: `${srv.base}/page` } });
      case "/cross":
        return new Response("moved", {
          status: 302,
          headers: { location: `http://localhost:${srv.port}/page` },
        });
      case "/huge.html":
        return new Response(HUGE_HTML, { headers: { "content-type": "text/html" } });
      case "/big":
        return new Response(bigBody(20 * 1024 * 1024), { headers: { "content-type": "text/plain" } });
      case "/slow":
        return new Response(srv.stallingBody("<html><body><p>first bytes"), {
          headers: { "content-type": "text/html" },
        });
      case "/doc.pdf":
        return new Response(makePdf(["Hello from page one", "Second page text"]), {
          headers: { "content-type": "application/pdf" },
        });
      case "/data.json":
        return Response.json({ otters: 13, kind: "sea" });
      case "/notes.md":
        return new Response("# Notes\n\n- keep *as is*\n", { headers: { "content-type": "text/markdown" } });
      case "/pixel.png":
        return new Response(new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0, 0, 0, 0]), {
          headers: { "content-type": "image/png" },
        });
      case "/latin1":
        return new Response(
          new Uint8Array([0x3c, 0x70, 0x3e, 0x63, 0x61, 0x66, 0xe9, 0x3c, 0x2f, 0x70, 0x3e]),
          {
            headers: { "content-type": "text/html; charset=iso-8859-1" },
          },
        );
      case "/boom":
        return new Response("internal trouble", { status: 500 });
      default:
        return new Response("no such page", { status: 404 });
    }
  });
}

async function fetchWith(
  options: WebToolOptions,
  input: Record<string, unknown>,
  extra: Partial<RunOptions> = {},
) {
  await using ws = await tempWorkspace();
  return await runTool(new ToolRegistry([createWebFetchTool(options)]), { name: "WebFetch", input }, {
    session: ws.session,
    rules: { allow: ["WebFetch"] },
    ...extra,
  });
}

Deno.test("WebFetch turns an HTML page into Markdown without scripts, styles or navigation", async () => {
  await using srv = pageServer();
  const r = await fetchWith({ allowPrivateHosts: LOCAL }, {
    url: `${srv.base}/page`,
    prompt: "What do otters do?",
  });
  assert.ok(r.ok, r.text);
  const data = r.data as WebFetchData;
  assert.equal(data.title, "Field guide");
  assert.equal(data.format, "markdown");
  assert.match(r.text, /^URL: http:\/\/127\.0\.0\.1:\d+\/page\nTitle: Field guide\n/);
  assert.match(r.text, /# Otters/);
  assert.match(r.text, /Otters hold hands while \*\*sleeping\*\*/);
  assert.match(r.text, new RegExp(`\\[more facts\\]\\(${srv.base}/docs/more\\)`), "links are made absolute");
  assert.match(r.text, /- River otter\n- Sea otter/);
  assert.match(r.text, /```\notter\.swim\(\)\n```/);
  for (
    const gone of ["tracking", "color: red", "Menu item", "Site home", "Related ads", "Copyright footer"]
  ) {
    assert.ok(!r.text.includes(gone), `"${gone}" should be dropped`);
  }
});

Deno.test("WebFetch follows redirects on the same host", async () => {
  await using srv = pageServer();
  const r = await fetchWith({ allowPrivateHosts: LOCAL }, { url: `${srv.base}/same`, prompt: "p" });
  assert.ok(r.ok, r.text);
  assert.equal((r.data as WebFetchData).finalUrl, `${srv.base}/page`);
  assert.match(r.text, /# Otters/);
  assert.deepEqual([srv.hits.get("/same"), srv.hits.get("/hop"), srv.hits.get("/page")], [1, 1, 1]);
});

Deno.test("WebFetch reports a redirect to another host instead of following it", async () => {
  await using srv = pageServer();
  const r = await fetchWith({ allowPrivateHosts: [...LOCAL, "localhost"] }, {
    url: `${srv.base}/cross`,
    prompt: "p",
  });
  assert.ok(r.ok, r.text);
  const target = `http://localhost:${srv.port}/page`;
  assert.equal((r.data as WebFetchData).redirectUrl, target);
  assert.match(r.text, new RegExp(`redirects \\(302\\) to another host: "${target}"`));
  assert.match(r.text, /call WebFetch again with url/);
  assert.equal(srv.hits.get("/page"), undefined, "the other host was not fetched");
});

Deno.test("WebFetch stops reading a 20 MB body at the 10 MB cap", async () => {
  await using srv = pageServer();
  const r = await fetchWith({ allowPrivateHosts: LOCAL }, { url: `${srv.base}/big`, prompt: "p" });
  assert.ok(r.ok, r.text);
  const data = r.data as WebFetchData;
  assert.equal(data.bytes, MAX_FETCH_BYTES);
  assert.equal(data.bodyTruncated, true);
  assert.match(r.text, /only the first 10 MB were read/);
  assert.ok(r.truncated, "the runner cuts the text for the model and spills the rest to a file");
});

Deno.test("WebFetch converts only the first 2 MB of a larger HTML page and says so", async () => {
  await using srv = pageServer();
  const r = await fetchWith({ allowPrivateHosts: LOCAL }, { url: `${srv.base}/huge.html`, prompt: "p" });
  assert.ok(r.ok, r.text);
  const data = r.data as WebFetchData;
  assert.equal(data.htmlCutFrom, HUGE_HTML.length);
  assert.equal(data.bodyTruncated, false);
  assert.match(
    r.text,
    new RegExp(
      `Note: the HTML is ${HUGE_HTML.length} characters long; only the first ${MAX_HTML_CONVERT_CHARS} were`,
    ),
  );
  assert.match(data.content!, /^# First heading\n/);
  assert.ok(!data.content!.includes("Last heading"), "the tail past the cap was not converted");
  assert.ok(data.content!.length < MAX_HTML_CONVERT_CHARS, "only the capped head was converted");
  const small = await fetchWith({ allowPrivateHosts: LOCAL }, { url: `${srv.base}/page`, prompt: "p" });
  assert.equal((small.data as WebFetchData).htmlCutFrom, undefined);
  assert.ok(!small.text.includes("Note: the HTML is"));
});

Deno.test("WebFetch gives up on a body that stalls past the timeout", async () => {
  await using srv = pageServer();
  const r = await fetchWith({ allowPrivateHosts: LOCAL, timeoutMs: 300 }, {
    url: `${srv.base}/slow`,
    prompt: "p",
  });
  assert.equal(r.ok, false);
  assert.equal(r.error?.code, "timeout");
  assert.match(r.text, /timed out after 300 ms/);
});

Deno.test("WebFetch stops when the call is aborted", async () => {
  await using srv = pageServer();
  const controller = new AbortController();
  const pending = fetchWith({ allowPrivateHosts: LOCAL }, { url: `${srv.base}/slow`, prompt: "p" }, {
    signal: controller.signal,
  });
  while (!srv.hits.get("/slow")) await new Promise((r) => setTimeout(r, 10));
  controller.abort();
  const r = await pending;
  assert.equal(r.error?.code, "aborted");
});

Deno.test("WebFetch extracts the text of a PDF page by page", async () => {
  await using srv = pageServer();
  const r = await fetchWith({ allowPrivateHosts: LOCAL }, { url: `${srv.base}/doc.pdf`, prompt: "p" });
  assert.ok(r.ok, r.text);
  assert.equal((r.data as WebFetchData).format, "pdf");
  assert.match(r.text, /2 PDF pages/);
  assert.match(r.text, /--- Page 1 ---\nHello from page one\n\n--- Page 2 ---\nSecond page text/);
});

Deno.test("WebFetch passes JSON and Markdown through and refuses binary content", async () => {
  await using srv = pageServer();
  const json = await fetchWith({ allowPrivateHosts: LOCAL }, { url: `${srv.base}/data.json`, prompt: "p" });
  assert.match(json.text, /\{"otters":13,"kind":"sea"\}$/);
  const md = await fetchWith({ allowPrivateHosts: LOCAL }, { url: `${srv.base}/notes.md`, prompt: "p" });
  assert.match(md.text, /# Notes\n\n- keep \*as is\*$/);
  const png = await fetchWith({ allowPrivateHosts: LOCAL }, { url: `${srv.base}/pixel.png`, prompt: "p" });
  assert.equal(png.error?.code, "invalid_input");
  assert.match(png.text, /is image\/png, which WebFetch cannot turn into text/);
});

Deno.test("WebFetch reports missing pages and server errors with their status", async () => {
  await using srv = pageServer();
  const missing = await fetchWith({ allowPrivateHosts: LOCAL }, { url: `${srv.base}/nope`, prompt: "p" });
  assert.equal(missing.error?.code, "not_found");
  assert.match(missing.text, /answered 404/);
  const boom = await fetchWith({ allowPrivateHosts: LOCAL }, { url: `${srv.base}/boom`, prompt: "p" });
  assert.equal(boom.error?.code, "execution_failed");
  assert.match(boom.text, /answered 500 Internal Server Error: internal trouble/);
});

Deno.test("WebFetch reuses a page for 15 minutes within a session", async () => {
  await using srv = pageServer();
  await using ws = await tempWorkspace();
  const reg = new ToolRegistry([createWebFetchTool({ allowPrivateHosts: LOCAL })]);
  let clock = 1_000_000;
  const run = () =>
    runTool(reg, { name: "WebFetch", input: { url: `${srv.base}/page`, prompt: "p" } }, {
      session: ws.session,
      rules: { allow: ["WebFetch"] },
      now: () => clock,
    });
  const first = await run();
  clock += 14 * 60_000;
  const second = await run();
  assert.equal(srv.hits.get("/page"), 1);
  assert.equal((first.data as WebFetchData).cached, false);
  assert.equal((second.data as WebFetchData).cached, true);
  assert.match(second.text, /from the 15-minute cache/);
  clock += 2 * 60_000;
  const third = await run();
  assert.equal((third.data as WebFetchData).cached, false);
  assert.equal(srv.hits.get("/page"), 2);
  await using other = await tempWorkspace();
  await runTool(reg, { name: "WebFetch", input: { url: `${srv.base}/page`, prompt: "p" } }, {
    session: other.session,
    rules: { allow: ["WebFetch"] },
    now: () => clock,
  });
  assert.equal(srv.hits.get("/page"), 3, "another session has its own cache");
});

Deno.test("WebFetch refuses private and loopback addresses unless allowed", async () => {
  await using srv = pageServer();
  const refused = await fetchWith({}, { url: `${srv.base}/page`, prompt: "p" });
  assert.equal(refused.error?.code, "permission_denied");
  assert.match(refused.text, /Refused to reach "127\.0\.0\.1": it is a private or local address: add it to/);
  assert.equal(srv.hits.get("/page"), undefined, "nothing was sent");
  for (
    const url of [
      "http://169.254.169.254/latest/meta-data/",
      "http://[::1]:9/",
      "http://2130706433/",
      "http://intranet/",
    ]
  ) {
    const r = await fetchWith({}, { url, prompt: "p" });
    assert.equal(r.error?.code, "permission_denied", url);
  }
  const resolved = await fetchWith({ resolveHost: () => Promise.resolve(["10.1.2.3"]) }, {
    url: "https://wiki.corp.example/",
    prompt: "p",
  });
  assert.match(resolved.text, /"wiki\.corp\.example": it resolves to the private address "10\.1\.2\.3"/);
});

Deno.test("WebFetch upgrades http to https except for allowed private hosts", async () => {
  const seen: string[] = [];
  const fakeFetch: typeof fetch = (input) => {
    seen.push(String(input instanceof Request ? input.url : input));
    return Promise.resolve(new Response("plain words", { headers: { "content-type": "text/plain" } }));
  };
  const options = { resolveHost: () => Promise.resolve(["93.184.216.34"]) };
  const r = await fetchWith(options, { url: "http://example.com/a?b=1#frag", prompt: "p" }, {
    fetch: fakeFetch,
  });
  assert.ok(r.ok, r.text);
  assert.deepEqual(seen, ["https://example.com/a?b=1"]);
  assert.match(r.text, /plain words$/);
});

Deno.test("WebFetch checks the www. host a same-host redirect moves to like the first host", async () => {
  const seen: string[] = [];
  const fakeFetch: typeof fetch = (input) => {
    const url = new URL(String(input instanceof Request ? input.url : input));
    seen.push(url.href);
    return Promise.resolve(
      url.hostname === "example.com"
        ? new Response(null, { status: 301, headers: { location: "https://www.example.com/a" } })
        : new Response("inside", { headers: { "content-type": "text/plain" } }),
    );
  };
  const resolveHost = (host: string) =>
    Promise.resolve(host === "www.example.com" ? ["10.0.0.5"] : ["93.184.216.34"]);
  const refused = await fetchWith({ resolveHost }, { url: "https://example.com/a", prompt: "p" }, {
    fetch: fakeFetch,
  });
  assert.equal(refused.error?.code, "permission_denied");
  assert.match(refused.text, /"www\.example\.com": it resolves to the private address "10\.0\.0\.5"/);
  assert.deepEqual(seen, ["https://example.com/a"], "the private host was not fetched");
  const blocked = await fetchWith(
    { resolveHost: () => Promise.resolve(["93.184.216.34"]), blockedDomains: ["www.example.com"] },
    { url: "https://example.com/a", prompt: "p" },
    { fetch: fakeFetch },
  );
  assert.match(blocked.text, /"www\.example\.com" is blocked by the web tools' blockedDomains/);
  const public_ = await fetchWith({ resolveHost: () => Promise.resolve(["93.184.216.34"]) }, {
    url: "https://example.com/a",
    prompt: "p",
  }, { fetch: fakeFetch });
  assert.ok(public_.ok, public_.text);
  assert.match(public_.text, /inside$/);
});

Deno.test("WebFetch applies the allowed and blocked domain lists", async () => {
  await using srv = pageServer();
  const blocked = await fetchWith({ allowPrivateHosts: LOCAL, blockedDomains: ["127.0.0.1"] }, {
    url: `${srv.base}/page`,
    prompt: "p",
  });
  assert.equal(blocked.error?.code, "permission_denied");
  assert.match(blocked.text, /is blocked by the web tools' blockedDomains/);
  const notAllowed = await fetchWith({ allowedDomains: ["deno.com"] }, {
    url: "https://example.com/",
    prompt: "p",
  });
  assert.match(notAllowed.text, /"example\.com" is not in the web tools' allowedDomains \("deno\.com"\)/);
  const allowed = await fetchWith({ allowPrivateHosts: LOCAL, allowedDomains: ["127.0.0.1"] }, {
    url: `${srv.base}/page`,
    prompt: "p",
  });
  assert.ok(allowed.ok, allowed.text);
  assert.equal(srv.hits.get("/page"), 1);
});

Deno.test("WebFetch answers the prompt with the summarize hook when one is set", async () => {
  await using srv = pageServer();
  const asked: { url: string; prompt: string; content: string }[] = [];
  const r = await fetchWith({
    allowPrivateHosts: LOCAL,
    summarize: ({ url, prompt, content }) => {
      asked.push({ url, prompt, content });
      return Promise.resolve("They hold hands while sleeping.");
    },
  }, { url: `${srv.base}/page`, prompt: "What do otters do?" });
  assert.ok(r.ok, r.text);
  assert.equal(asked.length, 1);
  assert.equal(asked[0].prompt, "What do otters do?");
  assert.equal(asked[0].url, `${srv.base}/page`);
  assert.match(asked[0].content, /# Otters/);
  assert.match(r.text, /\n\nThey hold hands while sleeping\.$/);
  assert.ok(!r.text.includes("# Otters"));
  assert.equal((r.data as WebFetchData).answeredByModel, true);
});

Deno.test("WebFetch refuses URLs that are not absolute http or https", async () => {
  for (
    const url of [
      "example.com/page",
      "ftp://example.com/x",
      "file:///etc/passwd",
      "https://user:pw@example.com/",
    ]
  ) {
    const r = await fetchWith({}, { url, prompt: "p" });
    assert.equal(r.error?.code, "invalid_input", url);
  }
});

Deno.test("Deno's --allow-net for the allowed host lets WebFetch reach it and refuses another host", async () => {
  await using srv = pageServer();
  await using ws = await tempWorkspace();
  const flags = toDenoFlags({
    tools: [{ name: "WebFetch", sideEffect: "Network" }],
    roots: [],
    hosts: [`127.0.0.1:${srv.port}`],
  });
  assert.deepEqual(flags, ["--no-prompt", `--allow-net=127.0.0.1:${srv.port}`]);
  const mod = new URL("../../../mod.ts", import.meta.url).href;
  const tool = new URL("../../../src/tools/web_fetch/web_fetch.ts", import.meta.url).href;
  const child = await ws.write(
    "child.ts",
    `import { runTool, Session, ToolRegistry } from "${mod}";
import { createWebFetchTool } from "${tool}";
const reg = new ToolRegistry([createWebFetchTool({ allowPrivateHosts: ["127.0.0.1", "localhost"] })]);
const session = new Session({ roots: ["${ws.dir}"], mode: "bypassPermissions" });
const out = [];
for (const host of ["127.0.0.1", "localhost"]) {
  const r = await runTool(reg, { name: "WebFetch", input: { url: "http://" + host + ":${srv.port}/page", prompt: "p" } }, { session });
  out.push({ ok: r.ok, code: r.error?.code, text: r.text.slice(0, 300) });
}
console.log(JSON.stringify(out));
`,
  );
  const { code, stdout, stderr } = await new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      "--no-lock",
      "--config",
      new URL("../../../deno.json", import.meta.url).pathname,
      ...flags,
      child,
    ],
    stdout: "piped",
    stderr: "piped",
    env: { NO_COLOR: "1" },
  }).output();
  const errText = new TextDecoder().decode(stderr);
  assert.equal(code, 0, errText);
  const [own, other] = JSON.parse(new TextDecoder().decode(stdout));
  assert.equal(own.ok, true, own.text);
  assert.match(own.text, /# Otters/);
  assert.equal(other.code, "permission_denied");
  assert.match(other.text, /Deno refused: Requires net access to "localhost:\d+"/);
});

Deno.test("WebFetch decodes a page in the charset its server names", async () => {
  await using srv = pageServer();
  const r = await fetchWith({ allowPrivateHosts: LOCAL }, { url: `${srv.base}/latin1`, prompt: "p" });
  assert.match(r.text, /\n\ncafé$/);
});

Deno.test("A redirect counts as same-host when only www. or http to https differs", () => {
  const table: [string, string, boolean][] = [
    ["https://example.com/a", "https://example.com/b", true],
    ["https://example.com/a", "https://www.example.com/b", true],
    ["http://example.com/a", "https://example.com/b", true],
    ["https://example.com/a", "http://example.com/b", false],
    ["https://example.com/a", "https://docs.example.com/b", false],
    ["http://127.0.0.1:8000/a", "http://127.0.0.1:9000/a", false],
    ["http://127.0.0.1:8000/a", "http://localhost:8000/a", false],
  ];
  for (const [from, to, same] of table) {
    assert.equal(isSameHost(new URL(from), new URL(to)), same, `${from} -> ${to}`);
  }
});

Deno.test("The runtime's built-in web tools use toolOptions.web and its hosts feed --allow-net", async () => {
  await using srv = pageServer();
  await using ws = await tempWorkspace();
  await using rt = createRuntime({
    roots: [ws.dir],
    toolOptions: { web: { allowPrivateHosts: LOCAL, allowedDomains: ["127.0.0.1"] } },
    hosts: [`127.0.0.1:${srv.port}`],
    rules: { allow: ["WebFetch(domain:127.0.0.1)"] },
  });
  const classes = builtinTools().filter((t) => t.name.startsWith("Web")).map((t) =>
    `${t.name}:${t.sideEffect}`
  );
  assert.deepEqual(classes, ["WebFetch:Network", "WebSearch:Network"]);
  const r = await rt.run("WebFetch", { url: `${srv.base}/page`, prompt: "p" });
  assert.ok(r.ok, r.text);
  assert.ok(toDenoFlags(rt.policy()).includes(`--allow-net=127.0.0.1:${srv.port}`));
  const elsewhere = await rt.run("WebFetch", { url: "https://example.com/", prompt: "p" });
  assert.equal(elsewhere.error?.code, "permission_denied");
});

/** Test helpers for the web tools: a real HTTP server on 127.0.0.1 and a tiny PDF writer. */

/** A running test server. */
export interface TestServer extends AsyncDisposable {
  /** The port it listens on. */
  port: number;
  /** `http://127.0.0.1:<port>`. */
  base: string;
  /** Requests seen, by path. */
  hits: Map<string, number>;
  /** The last request seen, by path. */
  requests: Map<string, Request>;
  /** A body that sends `first` and then stalls until the client goes away or the server stops. */
  stallingBody(first: string): ReadableStream<Uint8Array>;
}

/** Starts a server on 127.0.0.1, port 0; `await using srv = startServer(...)`. */
export function startServer(
  handler: (req: Request, url: URL, srv: TestServer) => Response | Promise<Response>,
): TestServer {
  const hits = new Map<string, number>();
  const requests = new Map<string, Request>();
  const releases = new Set<() => void>();
  // deno-lint-ignore prefer-const
  let api: TestServer;
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen: () => {} }, (req) => {
    const url = new URL(req.url);
    hits.set(url.pathname, (hits.get(url.pathname) ?? 0) + 1);
    requests.set(url.pathname, req);
    return handler(req, url, api);
  });
  const port = server.addr.port;
  api = {
    port,
    base: `http://127.0.0.1:${port}`,
    hits,
    requests,
    stallingBody(first) {
      let release!: () => void;
      const gate = new Promise<void>((resolve) => (release = resolve));
      releases.add(release);
      return new ReadableStream<Uint8Array>({
        start(c) {
          c.enqueue(new TextEncoder().encode(first));
        },
        async pull(c) {
          await gate;
          try {
            c.close();
          } catch {
            // already cancelled
          }
        },
        cancel() {
          release();
        },
      });
    },
    async [Symbol.asyncDispose]() {
      releases.forEach((r) => r());
      await server.shutdown();
    },
  };
  return api;
}

/** A body of `total` bytes of `x`, produced in 64 KB chunks as the client reads. */
export function bigBody(total: number): ReadableStream<Uint8Array> {
  const chunk = new Uint8Array(64 * 1024).fill(0x78);
  let sent = 0;
  return new ReadableStream<Uint8Array>({
    pull(c) {
      if (sent >= total) return c.close();
      const n = Math.min(chunk.length, total - sent);
      c.enqueue(chunk.subarray(0, n));
      sent += n;
    },
  });
}

/** A valid PDF with one page per string (Helvetica, ASCII text). */
export function makePdf(pageTexts: string[]): Uint8Array<ArrayBuffer> {
  const objects: string[] = [];
  const n = pageTexts.length;
  const fontId = 3 + 2 * n;
  objects.push("<< /Type /Catalog /Pages 2 0 R >>");
  objects.push(
    `<< /Type /Pages /Kids [${pageTexts.map((_, i) => `${3 + 2 * i} 0 R`).join(" ")}] /Count ${n} >>`,
  );
  pageTexts.forEach((text, i) => {
    const stream = `BT /F1 24 Tf 72 720 Td (${text.replace(/[()\\]/g, "\\$&")}) Tj ET`;
    objects.push(
      `<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents ${
        4 + 2 * i
      } 0 R /Resources << /Font << /F1 ${fontId} 0 R >> >> >>`,
    );
    objects.push(`<< /Length ${stream.length} >>\nstream\n${stream}\nendstream`);
  });
  objects.push("<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>");
  let out = "%PDF-1.4\n";
  const offsets: number[] = [];
  objects.forEach((body, i) => {
    offsets.push(out.length);
    out += `${i + 1} 0 obj\n${body}\nendobj\n`;
  });
  const xref = out.length;
  out += `xref\n0 ${objects.length + 1}\n0000000000 65535 f \n`;
  for (const o of offsets) out += `${String(o).padStart(10, "0")} 00000 n \n`;
  out += `trailer\n<< /Size ${objects.length + 1} /Root 1 0 R >>\nstartxref\n${xref}\n%%EOF\n`;
  return new TextEncoder().encode(out);
}

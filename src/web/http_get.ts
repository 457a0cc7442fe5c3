/**
 * One HTTP GET for the web tools: injected fetch, caller's signal, a time
 * limit covering headers and body, a byte cap on the body (the stream is
 * cancelled past it), and redirects left to the caller.
 *
 * @module
 */
import { PaddockError, ToolTimeoutError } from "../errors.ts";

/** The options {@link httpGet} takes. */
export interface HttpGetOptions {
  /** The fetch to use. */
  fetch: typeof fetch;
  /** Cancels the request. */
  signal: AbortSignal;
  /** Time limit for headers and body together (ms). */
  timeoutMs: number;
  /** Largest body read (bytes); past it the stream is cancelled and `truncated` set. */
  maxBytes: number;
  /** Request headers. */
  headers?: Record<string, string>;
  /** `manual` returns 3xx responses (body discarded) for the caller to follow. Default `manual`. */
  redirect?: "manual" | "follow";
}

/** A response with its (possibly capped) body. */
export interface HttpGetResult {
  /** The URL fetched. */
  url: string;
  /** HTTP status. */
  status: number;
  /** HTTP status text. */
  statusText: string;
  /** Response headers. */
  headers: Headers;
  /** The body, at most `maxBytes` (empty for redirects). */
  body: Uint8Array;
  /** True when the body was longer than `maxBytes`. */
  truncated: boolean;
}

/**
 * GETs `url`. Throws {@link ToolTimeoutError} past `timeoutMs`, the
 * signal's reason when aborted, Deno's own errors when its permissions
 * refuse the host, and an `execution_failed` error for network failures.
 *
 * @example
 * ```ts ignore
 * import { httpGet } from "./http_get.ts";
 * const res = await httpGet("https://example.com/", {
 *   fetch, signal: new AbortController().signal, timeoutMs: 10_000, maxBytes: 1 << 20,
 * });
 * console.log(res.status, res.body.length);
 * ```
 */
export async function httpGet(url: string, options: HttpGetOptions): Promise<HttpGetResult> {
  const { signal, timeoutMs, maxBytes } = options;
  const controller = new AbortController();
  const onAbort = () => controller.abort(signal.reason);
  if (signal.aborted) onAbort();
  signal.addEventListener("abort", onAbort, { once: true });
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    controller.abort(new ToolTimeoutError(`Fetching "${url}" timed out after ${timeoutMs} ms`));
  }, timeoutMs);
  try {
    const res = await options.fetch(url, {
      method: "GET",
      headers: options.headers,
      redirect: options.redirect ?? "manual",
      signal: controller.signal,
    });
    if (res.status >= 300 && res.status < 400 && res.headers.has("location")) {
      await res.body?.cancel().catch(() => {});
      return {
        url,
        status: res.status,
        statusText: res.statusText,
        headers: res.headers,
        body: new Uint8Array(),
        truncated: false,
      };
    }
    const { body, truncated } = await readCapped(res, maxBytes);
    return { url, status: res.status, statusText: res.statusText, headers: res.headers, body, truncated };
  } catch (err) {
    if (timedOut) {
      throw new ToolTimeoutError(
        `Fetching "${url}" timed out after ${timeoutMs} ms: the server is slow or stalled; try again later or raise the web tools' timeoutMs`,
      );
    }
    if (signal.aborted) throw signal.reason;
    if (err instanceof Deno.errors.NotCapable || err instanceof Deno.errors.PermissionDenied) throw err;
    if (err instanceof PaddockError) throw err;
    const message = err instanceof Error ? err.message : String(err);
    throw new PaddockError("execution_failed", `Could not fetch "${url}": ${message}`, { cause: err });
  } finally {
    clearTimeout(timer);
    signal.removeEventListener("abort", onAbort);
  }
}

async function readCapped(
  res: Response,
  maxBytes: number,
): Promise<{ body: Uint8Array; truncated: boolean }> {
  if (!res.body) return { body: new Uint8Array(), truncated: false };
  const reader = res.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  let truncated = false;
  try {
    while (true) {
      const { done, value } = await reader.read();
      if (done) break;
      if (size + value.length > maxBytes) {
        chunks.push(value.subarray(0, maxBytes - size));
        size = maxBytes;
        truncated = true;
        await reader.cancel().catch(() => {});
        break;
      }
      chunks.push(value);
      size += value.length;
    }
  } finally {
    reader.releaseLock();
  }
  const body = new Uint8Array(size);
  let at = 0;
  for (const c of chunks) {
    body.set(c, at);
    at += c.length;
  }
  return { body, truncated };
}

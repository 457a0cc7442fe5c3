/**
 * Retries for model requests: backoff with jitter on 408/409/429/5xx and
 * network errors, honouring `retry-after-ms` and `retry-after`; and the
 * clear messages for the errors that retrying cannot fix (401, 404…).
 *
 * The npm `openai` client can retry on its own; the loop turns that off
 * (`maxRetries: 0`) so that every wait is visible as a `retry` event, can be
 * aborted, and can be tested with an injected sleep.
 *
 * @module
 */
import { AbortedError } from "../errors.ts";

/** Retries after the first attempt, by default. */
export const DEFAULT_MAX_RETRIES = 4;
/** First backoff delay (ms), doubled per attempt. */
export const DEFAULT_BASE_DELAY_MS = 500;
/** Longest backoff delay (ms). */
export const DEFAULT_MAX_DELAY_MS = 30_000;
/** Longest wait a `retry-after` header may impose (ms); longer ones are cut to this. */
export const MAX_RETRY_AFTER_MS = 60_000;

/** What the `openai` package's `APIError` carries (and its subclasses). */
interface OpenAiApiError extends Error {
  /** HTTP status; undefined for connection errors and aborts. */
  status?: number;
  /** Response headers. */
  headers?: Headers;
  /** The response body's `error` object. */
  error?: unknown;
}

/**
 * Whether `err` is an instance of the `openai` package's error class `name`
 * (`APIError`, `APIConnectionError`, `APIUserAbortError`), by the names on
 * its class chain, which must also hold the package's `OpenAIError` base.
 * By name so that this module does not import `openai`: the package is
 * loaded only when a request is made (see `createModelClient`).
 */
function isOpenAiError(err: unknown, name: string): err is OpenAiApiError {
  if (!(err instanceof Error)) return false;
  let found = false;
  for (let p = Object.getPrototypeOf(err); p && p !== Error.prototype; p = Object.getPrototypeOf(p)) {
    const className = (p as { constructor?: { name?: string } }).constructor?.name;
    if (className === name) found = true;
    if (className === "OpenAIError") return found;
  }
  return false;
}

/** Whether `err` is the `openai` package's `APIUserAbortError` (the request's signal aborted). */
function isUserAbort(err: unknown): boolean {
  return isOpenAiError(err, "APIUserAbortError");
}

/**
 * Options of {@link withRetry}.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { type RetryOptions, withRetry } from "./retry.ts";
 * // fewer retries, shorter waits, and never a retry for this caller's own errors
 * const options: RetryOptions = {
 *   maxRetries: 2,
 *   baseDelayMs: 100,
 *   canRetry: (err) => !(err instanceof TypeError),
 * };
 * let attempts = 0;
 * const fail = () => {
 *   attempts++;
 *   return Promise.reject(new TypeError("bad request"));
 * };
 * await assert.rejects(withRetry(fail, options), TypeError);
 * assert.equal(attempts, 1);
 * ```
 */
export interface RetryOptions {
  /** Retries after the first attempt. Default {@link DEFAULT_MAX_RETRIES}. */
  maxRetries?: number;
  /** First backoff delay (ms). Default {@link DEFAULT_BASE_DELAY_MS}. */
  baseDelayMs?: number;
  /** Longest backoff delay (ms). Default {@link DEFAULT_MAX_DELAY_MS}. */
  maxDelayMs?: number;
  /** Waits `ms` unless aborted. Default: a timer. Tests inject one that records. */
  sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
  /** Stops the waiting and the retrying. */
  signal?: AbortSignal;
  /** Told before each wait. */
  onRetry?: (info: { attempt: number; delayMs: number; reason: string }) => void;
  /** Extra veto: return false to fail at once (for example once output was streamed). */
  canRetry?: (err: unknown) => boolean;
}

/**
 * The delay before retrying after `err`, or undefined when `err` is not worth
 * retrying. `attempt` counts from 1.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { retryDelay } from "./retry.ts";
 * assert.equal(retryDelay(new Error("bad"), 1), undefined);
 * ```
 */
export function retryDelay(err: unknown, attempt: number, options: RetryOptions = {}): number | undefined {
  if (isUserAbort(err) || err instanceof AbortedError) return undefined;
  if (err instanceof DOMException && err.name === "AbortError") return undefined;
  const isConnection = isOpenAiError(err, "APIConnectionError");
  const status = isOpenAiError(err, "APIError") ? err.status : undefined;
  const retryable = isConnection ||
    (status !== undefined && (status === 408 || status === 409 || status === 429 || status >= 500));
  if (!retryable) return undefined;
  const headers = isOpenAiError(err, "APIError") ? err.headers : undefined;
  const hinted = retryAfterMs(headers);
  if (hinted !== undefined) return Math.min(hinted, MAX_RETRY_AFTER_MS);
  const base = options.baseDelayMs ?? DEFAULT_BASE_DELAY_MS;
  const max = options.maxDelayMs ?? DEFAULT_MAX_DELAY_MS;
  const backoff = Math.min(max, base * 2 ** (attempt - 1));
  return Math.round(backoff * (0.75 + Math.random() * 0.25));
}

/** Reads `retry-after-ms`, then `retry-after` (seconds or an HTTP date); undefined when absent or invalid. */
export function retryAfterMs(headers: Headers | undefined, now: number = Date.now()): number | undefined {
  const ms = headers?.get("retry-after-ms");
  if (ms && Number.isFinite(Number(ms)) && Number(ms) >= 0) return Number(ms);
  const after = headers?.get("retry-after");
  if (!after) return undefined;
  if (/^\d+(\.\d+)?$/.test(after.trim())) return Number(after) * 1000;
  const date = Date.parse(after);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}

/**
 * Runs `fn`, retrying it while {@link retryDelay} says so.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { withRetry } from "./retry.ts";
 * const v = await withRetry(() => Promise.resolve(42));
 * assert.equal(v, 42);
 * ```
 */
export async function withRetry<T>(
  fn: (attempt: number) => Promise<T>,
  options: RetryOptions = {},
): Promise<T> {
  const max = options.maxRetries ?? DEFAULT_MAX_RETRIES;
  const sleep = options.sleep ?? abortableSleep;
  for (let attempt = 1;; attempt++) {
    try {
      return await fn(attempt);
    } catch (err) {
      if (options.signal?.aborted || attempt > max) throw err;
      if (options.canRetry && !options.canRetry(err)) throw err;
      const delayMs = retryDelay(err, attempt, options);
      if (delayMs === undefined) throw err;
      options.onRetry?.({ attempt, delayMs, reason: (err as Error).message ?? String(err) });
      await sleep(delayMs, options.signal);
      if (options.signal?.aborted) throw err;
    }
  }
}

/** A timer that resolves after `ms`, or early when `signal` aborts. */
export function abortableSleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal?.aborted) return resolve();
    const done = () => {
      clearTimeout(timer);
      signal?.removeEventListener("abort", done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal?.addEventListener("abort", done, { once: true });
  });
}

/**
 * Where a request went, for error messages.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { describeModelError, type EndpointInfo } from "./retry.ts";
 * const where: EndpointInfo = { baseUrl: "http://127.0.0.1:11434/v1", model: "qwen3" };
 * assert.match(describeModelError(new Error("boom"), where), /127\.0\.0\.1:11434/);
 * ```
 */
export interface EndpointInfo {
  /** The base URL. */
  baseUrl: string;
  /** The model asked for. */
  model: string;
}

/**
 * A message for a failed model request that names the base URL and the
 * model and says what to change.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { describeModelError } from "./retry.ts";
 * const m = describeModelError(new Error("boom"), { baseUrl: "http://x/v1", model: "m" });
 * assert.ok(m.includes("http://x/v1"));
 * ```
 */
export function describeModelError(err: unknown, where: EndpointInfo): string {
  const at = `"${where.baseUrl}"`;
  const model = `"${where.model}"`;
  if (isOpenAiError(err, "APIConnectionError") && !isUserAbort(err)) {
    const cause = (err.cause as Error | undefined)?.message;
    return `Cannot reach the model endpoint ${at}: ${
      cause ?? err.message
    }: check OPENAI_BASE_URL (or --base-url) and that the server is running`;
  }
  if (isOpenAiError(err, "APIError") && err.status !== undefined) {
    const detail = apiMessage(err);
    switch (err.status) {
      case 401:
        return `The model endpoint ${at} refused the API key (401) for model ${model}: ${detail}: set OPENAI_API_KEY to a key valid for this endpoint`;
      case 403:
        return `The model endpoint ${at} denied access (403) to model ${model}: ${detail}: check the key's permissions`;
      case 404:
        return `The model endpoint ${at} answered 404 for model ${model}: ${detail}: check the model name (--model or PADDOCK_MODEL) and that the base URL includes the API prefix such as /v1`;
      default:
        return `The model request to ${at} (model ${model}) failed with status ${err.status}: ${detail}`;
    }
  }
  return `The model request to ${at} (model ${model}) failed: ${(err as Error)?.message ?? String(err)}`;
}

function apiMessage(err: OpenAiApiError): string {
  const body = err.error as { message?: unknown } | undefined;
  if (body && typeof body.message === "string" && body.message) return body.message;
  return err.message.replace(/^\d{3}\s*/, "") || "no detail";
}

/**
 * The events the agent loop streams, the usage counters it keeps, and a small
 * push-to-pull queue that turns callbacks (tool progress, session events)
 * into an async iterable.
 *
 * @module
 */
import type { SessionEvent } from "../session/session.ts";
import type { ToolEvent } from "../tool/hooks.ts";

/**
 * Token and call counters, summed over the turns of a run.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { addUsage, emptyUsage } from "./events.ts";
 * import type { Usage } from "../../mod.ts";
 * const turn: Usage = {
 *   promptTokens: 1200,
 *   completionTokens: 80,
 *   totalTokens: 1280,
 *   requests: 1,
 *   toolCalls: 2,
 * };
 * assert.equal(addUsage(emptyUsage(), turn).toolCalls, 2);
 * ```
 */
export interface Usage {
  /** Prompt tokens the endpoint reported. */
  promptTokens: number;
  /** Completion tokens the endpoint reported. */
  completionTokens: number;
  /** Prompt plus completion tokens. */
  totalTokens: number;
  /** Model requests made (retries not counted). */
  requests: number;
  /** Tool calls run. */
  toolCalls: number;
}

/**
 * Why a run stopped.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import type { StopReason } from "../../mod.ts";
 * const describe = (reason: StopReason): string =>
 *   reason === "completed"
 *     ? "The model finished"
 *     : reason === "max_turns"
 *     ? "Out of turns"
 *     : `Stop: ${reason}`;
 * assert.equal(describe("max_turns"), "Out of turns");
 * ```
 */
export type StopReason = "completed" | "max_turns" | "token_budget" | "aborted" | "error";

/**
 * Every event a run yields, in order. Tool progress (`tool_start`,
 * `tool_output`, `tool_end`) is the runner's own {@link ToolEvent}.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import type { AgentEvent } from "../../mod.ts";
 * // what a terminal front end might print for each event
 * const render = (e: AgentEvent): string =>
 *   e.type === "text" ? e.delta : e.type === "tool_start" ? `\n> ${e.tool} ${e.summary}\n` : "";
 * assert.equal(render({ type: "text", delta: "Hello" }), "Hello");
 * const start: AgentEvent = {
 *   type: "tool_start",
 *   callId: "c1",
 *   tool: "Read",
 *   input: {},
 *   summary: "/w/a.ts",
 * };
 * assert.equal(render(start), "\n> Read /w/a.ts\n");
 * ```
 */
export type AgentEvent =
  | { type: "turn_start"; turn: number; model: string }
  | { type: "text"; delta: string }
  | { type: "tool_call"; callId: string; tool: string; arguments: string }
  | ToolEvent
  | { type: "usage"; turn: number; usage: Usage; total: Usage }
  | { type: "retry"; attempt: number; delayMs: number; reason: string }
  | { type: "turn_end"; turn: number; toolCalls: number }
  | { type: "session"; event: SessionEvent }
  | {
    type: "result";
    stopReason: StopReason;
    text: string;
    turns: number;
    usage: Usage;
    durationMs: number;
    error?: string;
  };

/**
 * A usage record of zeros.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { emptyUsage } from "./events.ts";
 * assert.equal(emptyUsage().totalTokens, 0);
 * ```
 */
export function emptyUsage(): Usage {
  return { promptTokens: 0, completionTokens: 0, totalTokens: 0, requests: 0, toolCalls: 0 };
}

/**
 * Adds `b` into `a` and returns `a`.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { addUsage, emptyUsage } from "./events.ts";
 * const total = emptyUsage();
 * addUsage(total, { promptTokens: 10, completionTokens: 5, totalTokens: 15, requests: 1, toolCalls: 2 });
 * addUsage(total, { promptTokens: 20, completionTokens: 5, totalTokens: 25, requests: 1, toolCalls: 0 });
 * assert.equal(total.totalTokens, 40);
 * assert.equal(total.requests, 2);
 * ```
 */
export function addUsage(a: Usage, b: Usage): Usage {
  a.promptTokens += b.promptTokens;
  a.completionTokens += b.completionTokens;
  a.totalTokens += b.totalTokens;
  a.requests += b.requests;
  a.toolCalls += b.toolCalls;
  return a;
}

/**
 * An unbounded queue that callbacks push into and one consumer drains with
 * `for await`. `close()` ends the iteration once the buffer is empty.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { EventQueue } from "./events.ts";
 * const q = new EventQueue<number>();
 * q.push(1);
 * q.close();
 * const seen: number[] = [];
 * for await (const n of q) seen.push(n);
 * assert.equal(seen.length, 1);
 * ```
 */
export class EventQueue<T> implements AsyncIterable<T> {
  #items: T[] = [];
  #wake: (() => void) | undefined;
  #closed = false;

  /** Adds an item (ignored after close). */
  push(item: T): void {
    if (this.#closed) return;
    this.#items.push(item);
    this.#wake?.();
  }

  /** Ends the iteration after the buffered items. */
  close(): void {
    this.#closed = true;
    this.#wake?.();
  }

  /** Drains the queue. */
  async *[Symbol.asyncIterator](): AsyncIterator<T> {
    while (true) {
      if (this.#items.length) {
        yield this.#items.shift()!;
        continue;
      }
      if (this.#closed) return;
      await new Promise<void>((resolve) => (this.#wake = resolve));
      this.#wake = undefined;
    }
  }
}

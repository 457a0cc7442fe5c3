/**
 * Renders the agent loop's events for a person (the answer's text streamed
 * to stdout; tool lines, live command output, todo lists, diffs, retries and
 * the usage line to stderr) or for scripts (`--json`: one event per line on
 * stdout).
 *
 * @module
 */
import { styleText } from "node:util";
import type { AgentEvent, Usage } from "../loop/events.ts";
import type { CliIo } from "./command.ts";

/** Longest diff shown after an edit (lines); the model still gets all of it. */
export const MAX_DIFF_LINES = 40;

/** Options of {@link createRenderer}. */
export interface RenderOptions {
  /** Emit JSON lines instead of text. */
  json?: boolean;
  /** Colour the output (the caller decides: a terminal without NO_COLOR). Default false. */
  color?: boolean;
}

/** Turns events into output. */
export interface Renderer {
  /** Renders one event. */
  render(event: AgentEvent): void;
}

/**
 * Makes a renderer writing to `io`.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { createRenderer } from "./render.ts";
 * const out: string[] = [];
 * const io = { out: (t: string) => out.push(t), err: (t: string) => out.push(t) } as never;
 * createRenderer(io).render({ type: "text", delta: "Hello" });
 * assert.ok(out.join("") === "Hello");
 * ```
 */
export function createRenderer(io: Pick<CliIo, "out" | "err">, options: RenderOptions = {}): Renderer {
  if (options.json) {
    return { render: (event) => io.out(JSON.stringify(event) + "\n") };
  }
  // the caller has decided on colour, so styleText is not to check the stream or the environment again
  const paint: Paint = (style, s) => (options.color ? styleText(style, s, { validateStream: false }) : s);
  const dim = (s: string) => paint("dim", s);
  let textOpen = false; // stdout holds text without a final newline
  let outputOpen = false; // stderr holds live output without a final newline
  const closeText = () => {
    if (textOpen) io.out("\n");
    textOpen = false;
  };
  const closeOutput = () => {
    if (outputOpen) io.err("\n");
    outputOpen = false;
  };
  return {
    render(event) {
      switch (event.type) {
        case "text":
          closeOutput();
          io.out(event.delta);
          textOpen = !event.delta.endsWith("\n");
          break;
        case "tool_start":
          closeText();
          closeOutput();
          io.err(`${paint("cyan", "→")} ${event.tool}${callDetail(event.input, event.summary)}\n`);
          break;
        case "tool_output":
          io.err(dim(event.chunk));
          outputOpen = !event.chunk.endsWith("\n");
          break;
        case "tool_end": {
          closeOutput();
          if (!event.ok) {
            closeText();
            const first = event.result.text.replace(/^Error: /, "").split("\n")[0];
            io.err(`  ${paint("red", "✗")} ${event.tool}: ${first}\n`);
            break;
          }
          const diff = (event.result.data as { diff?: unknown } | undefined)?.diff;
          if (typeof diff === "string" && diff.trim()) io.err(formatDiff(diff, paint) + "\n");
          break;
        }
        case "session":
          if (event.event.type === "todos") {
            closeText();
            io.err(formatTodos(event.event.todos) + "\n");
          } else if (event.event.type === "mode") {
            closeText();
            io.err(dim(`(permission mode: ${event.event.mode})`) + "\n");
          } else if (event.event.type === "config") {
            closeText();
            io.err(dim(`(config: ${event.event.setting} = ${JSON.stringify(event.event.value)})`) + "\n");
          }
          break;
        case "retry":
          closeText();
          io.err(
            dim(
              `(model request failed: ${event.reason}; retry ${event.attempt} in ${
                (event.delayMs / 1000).toFixed(1)
              } s)`,
            ) + "\n",
          );
          break;
        case "result":
          closeText();
          closeOutput();
          if (event.error) io.err(`${paint("red", "Error:")} ${event.error}\n`);
          else if (event.stopReason !== "completed") io.err(`Stopped: ${stopText(event.stopReason)}\n`);
          io.err(dim(usageLine(event.usage, event.turns, event.durationMs)) + "\n");
          break;
        default:
          break;
      }
    },
  };
}

/** What a tool line shows: a command as typed (with its description after), else the tool's summary. */
function callDetail(input: unknown, summary: string): string {
  const command = (input as { command?: unknown } | null)?.command;
  if (typeof command === "string") {
    const first = command.split("\n")[0];
    const shown = first.length > 200 ? `${first.slice(0, 197)}...` : first;
    return ` ${shown}${summary && summary !== command ? `  # ${summary}` : ""}`;
  }
  return summary ? ` ${summary}` : "";
}

function stopText(reason: string): string {
  switch (reason) {
    case "max_turns":
      return "the turn limit was reached (raise it with --max-turns)";
    case "token_budget":
      return "the token budget was used up";
    case "aborted":
      return "interrupted";
    default:
      return reason;
  }
}

/** The final usage line: turns, tokens, tool calls and time. */
export function usageLine(usage: Usage, turns: number, durationMs: number): string {
  return `${turns} turn${
    turns === 1 ? "" : "s"
  }, ${usage.totalTokens} tokens (${usage.promptTokens} in, ${usage.completionTokens} out), ${usage.toolCalls} tool call${
    usage.toolCalls === 1 ? "" : "s"
  }, ${(durationMs / 1000).toFixed(1)} s`;
}

/** A todo list as checkbox lines. */
export function formatTodos(todos: unknown): string {
  const list = Array.isArray(todos)
    ? todos as Array<{ content?: string; status?: string; activeForm?: string }>
    : [];
  if (list.length === 0) return "Todos: (all done)";
  return [
    "Todos:",
    ...list.map((t) => {
      const mark = t.status === "completed" ? "[x]" : t.status === "in_progress" ? "[>]" : "[ ]";
      return `  ${mark} ${t.status === "in_progress" ? t.activeForm ?? t.content : t.content}`;
    }),
  ].join("\n");
}

/** Colours `s` with one of node's `styleText` formats, or leaves it plain. */
type Paint = (style: "cyan" | "red" | "green" | "dim", s: string) => string;

function formatDiff(diff: string, paint: Paint): string {
  const lines = diff.replace(/\n$/, "").split("\n");
  const shown = lines.slice(0, MAX_DIFF_LINES).map((l) =>
    "  " +
    (l.startsWith("+") && !l.startsWith("+++")
      ? paint("green", l)
      : l.startsWith("-") && !l.startsWith("---")
      ? paint("red", l)
      : l)
  );
  if (lines.length > MAX_DIFF_LINES) shown.push(`  … ${lines.length - MAX_DIFF_LINES} more diff lines`);
  return shown.join("\n");
}

/**
 * TodoWrite: the session's task list. Each call replaces the whole list;
 * observers get a `todos` event; a list whose items are all completed is
 * cleared from the session.
 *
 * @module
 */
import { z } from "zod";
import { defineTool, type Tool } from "../tool/define_tool.ts";
import type { Session } from "../session/session.ts";

/** Most items one list may hold. */
export const MAX_TODOS = 100;

/**
 * The states of a todo item.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { TODO_STATUSES } from "./todo_write.ts";
 * assert.deepEqual([...TODO_STATUSES], ["pending", "in_progress", "completed"]);
 * ```
 */
export const TODO_STATUSES = ["pending", "in_progress", "completed"] as const;

/**
 * One of {@link TODO_STATUSES}.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import type { TodoStatus } from "./todo_write.ts";
 * const mark: Record<TodoStatus, string> = { pending: "[ ]", in_progress: "[~]", completed: "[x]" };
 * assert.equal(mark.completed, "[x]");
 * ```
 */
export type TodoStatus = typeof TODO_STATUSES[number];

/**
 * One item of the list.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import type { TodoItem } from "./todo_write.ts";
 * const item: TodoItem = {
 *   content: "Run the tests",
 *   status: "in_progress",
 *   activeForm: "Running the tests",
 * };
 * assert.equal(item.status, "in_progress");
 * ```
 */
export interface TodoItem {
  /** What to do, imperative ("Run the tests"). */
  content: string;
  /** Where it stands. */
  status: TodoStatus;
  /** The same in the present continuous, shown while it runs ("Running the tests"). */
  activeForm: string;
}

/**
 * Structured result of TodoWrite.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { runTool, ToolRegistry } from "../../mod.ts";
 * import { type TodoWriteResult, todoWriteTool } from "./todo_write.ts";
 * const r = await runTool(new ToolRegistry([todoWriteTool]), {
 *   name: "TodoWrite",
 *   input: { todos: [{ content: "Fix the bug", status: "pending", activeForm: "Fixing the bug" }] },
 * });
 * const data = r.data as TodoWriteResult;
 * assert.equal(data.oldTodos.length, 0);
 * assert.equal(data.newTodos[0].content, "Fix the bug");
 * ```
 */
export interface TodoWriteResult {
  /** The list before this call. */
  oldTodos: TodoItem[];
  /** The list as sent. */
  newTodos: TodoItem[];
  /** True when every item was completed, so the stored list was cleared. */
  cleared: boolean;
}

const SLOT = "todos";

interface TodoState {
  todos: TodoItem[];
}

function state(session: Session): TodoState {
  return session.slot<TodoState>(SLOT, () => ({ todos: [] }));
}

/**
 * The session's current todo list (empty after a list was all completed).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { Session } from "../session/session.ts";
 * import { currentTodos } from "./todo_write.ts";
 * assert.equal(currentTodos(new Session({ roots: [Deno.cwd()] })).length, 0);
 * ```
 */
export function currentTodos(session: Session): TodoItem[] {
  return state(session).todos.map((t) => ({ ...t }));
}

const nonEmpty = (what: string): z.ZodString => z.string().trim().min(1, `${what} must not be empty`);

/**
 * Input of TodoWrite.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { type TodoWriteInput, todoWriteTool } from "./todo_write.ts";
 * const input: TodoWriteInput = {
 *   todos: [{ content: "Write docs", status: "completed", activeForm: "Writing docs" }],
 * };
 * assert.ok(todoWriteTool.input.safeParse(input).success);
 * ```
 */
export interface TodoWriteInput {
  /** The whole updated list. */
  todos: TodoItem[];
}

const input: z.ZodType<TodoWriteInput> = z.strictObject({
  todos: z.array(
    z.strictObject({
      content: nonEmpty("content").describe('What to do, in the imperative ("Run the tests")'),
      status: z.enum(TODO_STATUSES).describe("pending, in_progress (one at a time) or completed"),
      activeForm: nonEmpty("activeForm").describe(
        'The same task in the present continuous ("Running the tests")',
      ),
    }),
  ).max(MAX_TODOS, `at most ${MAX_TODOS} items`).describe(
    "The whole updated list; it replaces the previous one",
  ),
});

const MARKS: Record<TodoStatus, string> = { pending: "[ ]", in_progress: "[~]", completed: "[x]" };

/**
 * TodoWrite `{todos: [{content, status, activeForm}]}`.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { runTool, ToolRegistry } from "../../mod.ts";
 * import { todoWriteTool } from "./todo_write.ts";
 * const r = await runTool(new ToolRegistry([todoWriteTool]), {
 *   name: "TodoWrite",
 *   input: { todos: [{ content: "Test", status: "pending", activeForm: "Testing" }] },
 * });
 * assert.ok(r.ok);
 * ```
 */
export const todoWriteTool: Tool<TodoWriteInput, TodoWriteResult> = defineTool<
  TodoWriteInput,
  TodoWriteResult
>({
  name: "TodoWrite",
  description: "Keeps a short task list for the current work, visible to the user. Send the whole list " +
    "each time; it replaces the previous one. Use it for work of three steps or more: mark an item " +
    "in_progress before starting it (one at a time) and completed as soon as it is done.",
  sideEffect: "None",
  input,
  summarize: (i) => `${i.todos.length} item${i.todos.length === 1 ? "" : "s"}`,
  execute: (i, ctx) => {
    const st = state(ctx.session);
    const oldTodos = st.todos;
    const newTodos: TodoItem[] = i.todos.map((t) => ({
      content: t.content,
      status: t.status,
      activeForm: t.activeForm,
    }));
    const cleared = newTodos.length > 0 && newTodos.every((t) => t.status === "completed");
    st.todos = cleared ? [] : newTodos;
    ctx.session.emit({ type: "todos", todos: newTodos.map((t) => ({ ...t })), previous: oldTodos, cleared });
    const count = (s: TodoStatus) => newTodos.filter((t) => t.status === s).length;
    const head = newTodos.length === 0
      ? "Todo list cleared"
      : cleared
      ? `All ${newTodos.length} todos completed: the list is cleared`
      : `Todo list updated: ${count("pending")} pending, ${count("in_progress")} in progress, ${
        count("completed")
      } completed`;
    const lines = newTodos.map((t) => `${MARKS[t.status]} ${t.content}`);
    return Promise.resolve({
      text: [head, ...lines].join("\n"),
      data: { oldTodos, newTodos, cleared },
    });
  },
});

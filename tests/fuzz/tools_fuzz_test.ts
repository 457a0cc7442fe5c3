import assert from "node:assert/strict";
import fc from "fast-check";
import { ERROR_CODES } from "../../src/errors.ts";
import { createRuntime, type Runtime } from "../../src/runtime/runtime.ts";
import type { ToolCallResult } from "../../src/tool/run_tool.ts";

// Property-based fuzzing of every built-in file, search and in-memory tool through the runner:
// random and malformed inputs (any JSON value, wrong types, huge strings, NUL bytes, weird paths)
// never throw, never hang, and every failure is a result that starts with "Error:" and has a code.
// Bash gets only inputs that fail validation (no command string), so nothing runs.

/** Runs per tool and per generator; the file stays well under 20 s. */
const NUM_RUNS = 100;
/** A hang fails the run after this long (the call's own timeout is shorter). */
const RUN_DEADLINE_MS = 15_000;
/** The call's timeout. */
const CALL_TIMEOUT_MS = 5_000;

const STATS: Record<string, number> | undefined = Deno.env.get("FUZZ_STATS") ? {} : undefined;
const CODES: ReadonlySet<string> = new Set(ERROR_CODES);

function within<T>(ms: number, p: Promise<T>): Promise<T> {
  const signal = AbortSignal.timeout(ms);
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(new Error(`did not return within ${ms} ms`));
    signal.addEventListener("abort", onAbort, { once: true });
    p.then(resolve, reject).finally(() => signal.removeEventListener("abort", onAbort));
  });
}

function assertWellFormed(r: ToolCallResult, label: string): void {
  assert.equal(typeof r.ok, "boolean", label);
  assert.equal(typeof r.text, "string", label);
  if (r.ok) return;
  assert.ok(r.text.startsWith("Error:"), `${label}: ${r.text.slice(0, 300)}`);
  assert.ok(r.error && CODES.has(r.error.code), `${label}: code ${r.error?.code}`);
  assert.equal(typeof r.error.message, "string", label);
}

/** Values of the wrong type or shape for any field. */
const junk: fc.Arbitrary<unknown> = fc.oneof(
  fc.integer(),
  fc.double(),
  fc.boolean(),
  fc.constant(null),
  fc.array(fc.string(), { maxLength: 3 }),
  fc.dictionary(fc.string({ maxLength: 5 }), fc.string({ maxLength: 5 }), { maxKeys: 3 }),
);

/** Strings that stress parsers: unicode, NUL bytes, control characters, regex and glob syntax, long runs. */
const nasty: fc.Arbitrary<string> = fc.oneof(
  fc.string({ unit: "grapheme", maxLength: 40 }),
  fc.string({ unit: "binary", maxLength: 40 }),
  fc.constantFrom(
    "",
    "\0",
    "a\0b",
    "\r\n",
    "\r",
    "..",
    "../..",
    "*",
    "**/*",
    "(a+)+$",
    "[",
    "\\",
    "{a,b",
    "-e",
  ),
  fc.nat({ max: 300_000 }).map((n) => "x".repeat(n)),
);

/** Absolute and relative paths, inside and outside the workspace. */
function paths(ws: string): fc.Arbitrary<string> {
  const seg = fc.oneof(
    fc.constantFrom("a.txt", "nb.ipynb", "sub", "..", ".", "", "..hidden", "link", "fifo", "x.png", "\0"),
    fc.string({ maxLength: 12 }),
  );
  return fc.oneof(
    fc.array(seg, { maxLength: 4 }).map((s) => `${ws}/${s.join("/")}`),
    fc.array(seg, { maxLength: 3 }).map((s) => s.join("/")),
    fc.constantFrom(
      "/",
      "/etc/passwd",
      "/proc/self/environ",
      "/dev/zero",
      `${ws}//a.txt`,
      `${ws}/./sub/../a.txt`,
    ),
    nasty,
  );
}

/** Objects with a tool's own keys (and sometimes an unknown one), each of any type. */
function shaped(
  keys: readonly string[],
  field: fc.Arbitrary<unknown>,
): fc.Arbitrary<Record<string, unknown>> {
  const rec = Object.fromEntries(keys.map((k) => [k, field]));
  return fc.tuple(
    fc.record(rec, { requiredKeys: [] }),
    fc.option(fc.tuple(fc.string({ maxLength: 8 }), field), { nil: undefined }),
  ).map(([r, extra]) => (extra ? { ...r, [extra[0]]: extra[1] } : r));
}

const TOOL_KEYS: Readonly<Record<string, readonly string[]>> = {
  Read: ["file_path", "offset", "limit", "pages"],
  Write: ["file_path", "content"],
  Edit: ["file_path", "old_string", "new_string", "replace_all"],
  Glob: ["pattern", "path"],
  Grep: [
    "pattern",
    "path",
    "glob",
    "type",
    "output_mode",
    "-i",
    "-n",
    "-A",
    "-B",
    "-C",
    "head_limit",
    "offset",
    "multiline",
  ],
  NotebookEdit: ["notebook_path", "cell_id", "new_source", "cell_type", "edit_mode"],
  TodoWrite: ["todos"],
};

/** Inputs of the right shape and types whose values are hostile. */
function typed(ws: string): Readonly<Record<string, fc.Arbitrary<Record<string, unknown>>>> {
  const p = paths(ws);
  const int = fc.integer({ min: -5, max: 3_000_000 });
  const opt = { requiredKeys: [] as never[] };
  return {
    Read: fc.record({
      file_path: p,
      offset: fc.option(int, { nil: undefined }),
      limit: fc.option(int, { nil: undefined }),
    }),
    Write: fc.record({ file_path: p, content: nasty }),
    Edit: fc.record({
      file_path: fc.oneof(p, fc.constantFrom(`${ws}/a.txt`, `${ws}/sub/b.ts`)),
      old_string: fc.oneof(nasty, fc.constantFrom("alpha", "beta\r\n", "a", "\n")),
      new_string: nasty,
      replace_all: fc.boolean(),
    }),
    Glob: fc.record({ pattern: nasty, path: p }, opt),
    Grep: fc.record({
      pattern: nasty,
      path: p,
      glob: nasty,
      output_mode: fc.constantFrom("content", "count", "files_with_matches", "lines"),
      "-i": fc.boolean(),
      "-C": int,
      head_limit: int,
      multiline: fc.boolean(),
    }, opt),
    NotebookEdit: fc.record({
      notebook_path: fc.oneof(p, fc.constant(`${ws}/nb.ipynb`)),
      cell_id: fc.oneof(fc.constantFrom("c1", "cell-0", "cell-99"), nasty),
      new_source: nasty,
      cell_type: fc.constantFrom("code", "markdown", "raw"),
      edit_mode: fc.constantFrom("replace", "insert", "delete", "append"),
    }, opt),
    TodoWrite: fc.record({
      todos: fc.array(
        fc.record({
          content: nasty,
          status: fc.constantFrom("pending", "in_progress", "completed", "done"),
          activeForm: nasty,
        }),
        { maxLength: 5 },
      ),
    }),
  };
}

async function workspace(): Promise<string> {
  const ws = await Deno.realPath(await Deno.makeTempDir({ prefix: "paddock-fuzz-" }));
  await Deno.writeTextFile(`${ws}/a.txt`, "alpha\nbeta\r\ngamma\n");
  await Deno.mkdir(`${ws}/sub`);
  await Deno.writeTextFile(`${ws}/sub/b.ts`, "const x = 1;\n");
  await Deno.writeTextFile(
    `${ws}/nb.ipynb`,
    JSON.stringify({
      cells: [{ cell_type: "code", id: "c1", metadata: {}, source: ["1\n"], outputs: [] }],
      metadata: {},
      nbformat: 4,
      nbformat_minor: 5,
    }),
  );
  await Deno.writeFile(`${ws}/x.png`, new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]));
  await Deno.symlink("/etc", `${ws}/link`);
  await new Deno.Command("mkfifo", { args: [`${ws}/fifo`] }).output().catch(() => {});
  return ws;
}

async function fuzz(runtime: Runtime, tool: string, arb: fc.Arbitrary<unknown>): Promise<void> {
  await fc.assert(
    fc.asyncProperty(arb, async (input) => {
      const r = await within(RUN_DEADLINE_MS, runtime.run(tool, input, { timeoutMs: CALL_TIMEOUT_MS }));
      assertWellFormed(r, `${tool} ${JSON.stringify(input)?.slice(0, 200)}`);

      if (STATS) {
        STATS[`${tool} ${r.ok ? "ok" : r.error?.code}`] =
          (STATS[`${tool} ${r.ok ? "ok" : r.error?.code}`] ?? 0) + 1;
      }
    }),
    { numRuns: NUM_RUNS },
  );
}

Deno.test("Every built-in tool answers random and malformed input with a result, and failures with a coded Error", async (t) => {
  const ws = await workspace();
  const runtime = createRuntime({ roots: [ws], sandbox: false, mode: "bypassPermissions" });
  try {
    // Read first so Write, Edit and NotebookEdit get past the read-before-write check sometimes
    for (const f of ["a.txt", "nb.ipynb", "sub/b.ts"]) await runtime.run("Read", { file_path: `${ws}/${f}` });
    const field = fc.oneof(paths(ws), nasty, junk);
    const wellTyped = typed(ws);
    for (const [tool, keys] of Object.entries(TOOL_KEYS)) {
      await t.step(`${tool}: any JSON value`, () => fuzz(runtime, tool, fc.jsonValue()));
      await t.step(`${tool}: its own fields, any type`, () => fuzz(runtime, tool, shaped(keys, field)));
      await t.step(`${tool}: right types, hostile values`, () => fuzz(runtime, tool, wellTyped[tool]));
    }
    await t.step("Bash: inputs that fail validation", () =>
      fuzz(
        runtime,
        "Bash",
        fc.oneof(
          fc.jsonValue().filter((v) => typeof (v as { command?: unknown } | null)?.command !== "string"),
          shaped(["command", "timeout", "description", "run_in_background"], junk).map((r) => ({
            ...r,
            command: r.command === undefined ? 0 : r.command,
          })),
        ),
      ));
  } finally {
    if (STATS) console.log(STATS);
    await runtime.close();
    await Deno.remove(ws, { recursive: true });
  }
});

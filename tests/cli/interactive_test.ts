import assert from "node:assert/strict";
import type { CliIo } from "../../src/cli/command.ts";
import { readTerminalLine, terminalInteraction } from "../../src/cli/interactive.ts";
import { AbortedError, runTool, ToolRegistry } from "../../mod.ts";
import { createAskUserQuestionTool } from "../../src/tools/ask_user_question.ts";
import { tempWorkspace } from "../_helpers/workspace.ts";
import type { Question } from "../../src/tool/interaction.ts";

/** A fake terminal: stdin fed chunk by chunk, stderr collected. */
function fakeTerminal(chunks: string[], isTerminal = true): CliIo & { errText: () => string } {
  const enc = new TextEncoder();
  const queue = [...chunks];
  const err: string[] = [];
  return {
    out: () => {},
    err: (t) => err.push(t),
    stdin: new ReadableStream<Uint8Array>({
      pull(controller) {
        const next = queue.shift();
        if (next === undefined) controller.close();
        else controller.enqueue(enc.encode(next));
      },
    }),
    isTerminal,
    env: {},
    cwd: "/",
    signal: new AbortController().signal,
    errText: () => err.join(""),
  };
}

const q = (question: string, multiSelect = false): Question => ({
  question,
  header: "Pick",
  options: [
    { label: "Red", description: "Warm" },
    { label: "Green", description: "Calm" },
    { label: "Blue", description: "Cool" },
  ],
  multiSelect,
});

Deno.test("readTerminalLine keeps the lines that arrive in one chunk", async () => {
  const io = fakeTerminal(["one\r\ntwo\nthr", "ee\n", "tail"]);
  assert.equal(await readTerminalLine(io.stdin), "one");
  assert.equal(await readTerminalLine(io.stdin), "two");
  assert.equal(await readTerminalLine(io.stdin), "three");
  assert.equal(await readTerminalLine(io.stdin), "tail");
  assert.equal(await readTerminalLine(io.stdin), null);
});

Deno.test("readTerminalLine stops on abort and leaves the input readable", async () => {
  let controllerRef: ReadableStreamDefaultController<Uint8Array> | undefined;
  const stdin = new ReadableStream<Uint8Array>({ start: (c) => void (controllerRef = c) });
  const abort = new AbortController();
  const pending = readTerminalLine(stdin, abort.signal);
  abort.abort();
  await assert.rejects(pending, AbortedError);
  controllerRef!.enqueue(new TextEncoder().encode("later\n"));
  assert.equal(await readTerminalLine(stdin), "later");
  controllerRef!.close();
});

Deno.test("terminalInteraction gives no handlers when stdin is not a terminal", async () => {
  const io = fakeTerminal(["1\n"], false);
  const handlers = terminalInteraction(io);
  assert.equal(handlers.askUser, undefined);
  assert.equal(handlers.approvePlan, undefined);
  await using ws = await tempWorkspace();
  const r = await runTool(new ToolRegistry([createAskUserQuestionTool(handlers)]), {
    name: "AskUserQuestion",
    input: { questions: [q("Colour?")] },
  }, { session: ws.session });
  assert.equal(r.error?.code, "unavailable");
});

Deno.test("The terminal question handler takes numbers, several numbers, a label or free text", async () => {
  const io = fakeTerminal(["2\n", "9\n", "1, 3\n", "blue\n", "Something purple\n"]);
  const { askUser } = terminalInteraction(io);
  const answers = await askUser!([q("First?"), q("Several?", true), q("Typed?"), q("Own?")], io.signal);
  assert.deepEqual(answers, {
    "First?": "Green",
    "Several?": ["Red", "Blue"],
    "Typed?": "Blue",
    "Own?": "Something purple",
  });
  assert.match(io.errText(), /\[Pick\] First\?\n {2}1\. Red - Warm\n {2}2\. Green - Calm/);
  assert.match(io.errText(), /Please pick a listed number/, "9 is out of range and asked again");
});

Deno.test("The terminal plan approver approves on y and passes other text back as feedback", async () => {
  const io = fakeTerminal(["y\n", "n\n", "split step 2 in two\n"]);
  const { approvePlan } = terminalInteraction(io);
  const request = {
    plan: "1. Do\n2. Check",
    allowedPrompts: [{ tool: "Bash" as const, prompt: "run tests" }],
    input: {},
  };
  assert.deepEqual(await approvePlan!(request, io.signal), { approved: true });
  assert.deepEqual(await approvePlan!(request, io.signal), { approved: false });
  assert.deepEqual(await approvePlan!(request, io.signal), {
    approved: false,
    feedback: "split step 2 in two",
  });
  assert.match(
    io.errText(),
    /Proposed plan:\n {2}1\. Do\n {2}2\. Check\nIt asks to be allowed to:\n {2}- Bash: run tests/,
  );
});

Deno.test("The terminal handlers fail instead of waiting when input ends", async () => {
  const io = fakeTerminal([]);
  const { askUser, approvePlan } = terminalInteraction(io);
  await assert.rejects(askUser!([q("Any?")], io.signal), /Standard input closed before the user answered/);
  await assert.rejects(approvePlan!({ allowedPrompts: [], input: {} }, io.signal), /Standard input closed/);
});

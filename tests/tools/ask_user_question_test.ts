import assert from "node:assert/strict";
import { builtinTools, runTool, ToolRegistry } from "../../mod.ts";
import type { Question } from "../../src/tool/interaction.ts";
import { type AskUserQuestionResult, createAskUserQuestionTool } from "../../src/tools/ask_user_question.ts";
import { tempWorkspace } from "../_helpers/workspace.ts";

const opts = (...labels: string[]) => labels.map((label) => ({ label, description: `Use ${label}` }));

Deno.test("AskUserQuestion returns the handler's answers keyed by question", async () => {
  await using ws = await tempWorkspace();
  let asked: readonly Question[] = [];
  const tool = createAskUserQuestionTool({
    askUser: (questions) => {
      asked = questions;
      return Promise.resolve({ "Which database?": "Postgres", "Which extras?": ["Cache", "Metrics"] });
    },
  });
  const r = await runTool(new ToolRegistry([tool]), {
    name: "AskUserQuestion",
    input: {
      questions: [
        { question: "Which database?", header: "Database", options: opts("Postgres", "SQLite") },
        {
          question: "Which extras?",
          header: "Extras",
          options: opts("Cache", "Metrics", "Tracing"),
          multiSelect: true,
        },
      ],
    },
  }, { session: ws.session });
  assert.equal(r.ok, true, r.text);
  assert.equal(asked.length, 2);
  assert.equal(asked[0].multiSelect, false, "multiSelect defaults to false");
  assert.equal(asked[1].multiSelect, true);
  assert.deepEqual((r.data as AskUserQuestionResult).answers, {
    "Which database?": "Postgres",
    "Which extras?": "Cache, Metrics",
  });
  assert.match(r.text, /"Which database\?" = "Postgres"/);
  assert.match(r.text, /"Which extras\?" = "Cache, Metrics"/);
});

Deno.test("AskUserQuestion without a handler fails with a clear error", async () => {
  await using ws = await tempWorkspace();
  const r = await runTool(new ToolRegistry([createAskUserQuestionTool()]), {
    name: "AskUserQuestion",
    input: { questions: [{ question: "Go on?", header: "Confirm", options: opts("Yes", "No") }] },
  }, { session: ws.session });
  assert.equal(r.ok, false);
  assert.equal(r.error?.code, "unavailable");
  assert.match(r.text, /^Error: No user-input handler is set/);
});

Deno.test("AskUserQuestion uses answers filled in beforehand without asking", async () => {
  await using ws = await tempWorkspace();
  const tool = createAskUserQuestionTool({ askUser: () => Promise.reject(new Error("must not be asked")) });
  const r = await runTool(new ToolRegistry([tool]), {
    name: "AskUserQuestion",
    input: {
      questions: [{ question: "Go on?", header: "Confirm", options: opts("Yes", "No") }],
      answers: { "Go on?": "Only after lunch" },
    },
  }, { session: ws.session });
  assert.equal(r.ok, true, r.text);
  assert.deepEqual((r.data as AskUserQuestionResult).answers, { "Go on?": "Only after lunch" });
});

Deno.test("AskUserQuestion refuses repeated questions and labels, long headers and wrong counts", async () => {
  await using ws = await tempWorkspace();
  const reg = new ToolRegistry([createAskUserQuestionTool({ askUser: () => Promise.resolve({}) })]);
  const run = (input: unknown) => runTool(reg, { name: "AskUserQuestion", input }, { session: ws.session });

  const dup = await run({
    questions: [
      { question: "Same?", header: "A", options: opts("Yes", "Yes") },
      { question: "Same?", header: "A very long header", options: opts("One", "Two") },
    ],
  });
  assert.equal(dup.error?.code, "invalid_input");
  assert.match(dup.text, /question "Same\?" is asked twice/);
  assert.match(dup.text, /label "Yes" is used twice/);
  assert.match(dup.text, /header must be at most 12 characters/);

  const few = await run({ questions: [{ question: "Q?", header: "H", options: opts("Only") }] });
  assert.match(few.text, /give at least 2 options/);
  const many = await run({
    questions: [{ question: "Q?", header: "H", options: opts("1", "2", "3", "4", "5") }],
  });
  assert.match(many.text, /give at most 4 options/);
  const none = await run({ questions: [] });
  assert.match(none.text, /ask at least 1 question/);
  const five = await run({
    questions: ["a", "b", "c", "d", "e"].map((q) => ({ question: q, header: "H", options: opts("1", "2") })),
  });
  assert.match(five.text, /ask at most 4 questions/);
});

Deno.test("AskUserQuestion stops waiting when the call is aborted", async () => {
  await using ws = await tempWorkspace();
  let sawAbort = false;
  const tool = createAskUserQuestionTool({
    askUser: (_q, signal) =>
      new Promise((_resolve, reject) => {
        signal.addEventListener("abort", () => {
          sawAbort = true;
          reject(signal.reason);
        }, { once: true });
      }),
  });
  const controller = new AbortController();
  const pending = runTool(new ToolRegistry([tool]), {
    name: "AskUserQuestion",
    input: { questions: [{ question: "Go on?", header: "Confirm", options: opts("Yes", "No") }] },
  }, { session: ws.session, signal: controller.signal });
  await new Promise((r) => setTimeout(r, 10));
  controller.abort();
  const r = await pending;
  assert.equal(r.ok, false);
  assert.equal(r.error?.code, "aborted");
  assert.equal(sawAbort, true, "the handler's signal was aborted");
});

Deno.test("builtinTools hands the interaction handlers to AskUserQuestion and ExitPlanMode", async () => {
  await using ws = await tempWorkspace();
  const tools = builtinTools({
    interaction: {
      askUser: (qs) => Promise.resolve({ [qs[0].question]: "No" }),
      approvePlan: () => Promise.resolve(true),
    },
  }).filter((t) => t.name === "AskUserQuestion" || t.name === "ExitPlanMode");
  const reg = new ToolRegistry(tools);
  const asked = await runTool(reg, {
    name: "AskUserQuestion",
    input: { questions: [{ question: "Go on?", header: "Confirm", options: opts("Yes", "No") }] },
  }, { session: ws.session });
  assert.deepEqual((asked.data as AskUserQuestionResult).answers, { "Go on?": "No" });
  ws.session.setMode("plan");
  const exit = await runTool(reg, { name: "ExitPlanMode", input: {} }, { session: ws.session });
  assert.equal(exit.ok, true, exit.text);
  assert.equal(ws.session.mode, "default");
});

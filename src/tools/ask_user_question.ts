/**
 * AskUserQuestion: puts 1 to 4 multiple-choice questions to the user through
 * the injected handler and returns the answers (labels or free text).
 *
 * @module
 */
import { z } from "zod";
import { AbortedError, InvalidInputError, UnavailableError } from "../errors.ts";
import { defineTool, type Tool } from "../tool/define_tool.ts";
import type { InteractionOptions, Question } from "../tool/interaction.ts";

/** Most questions per call. */
export const MAX_QUESTIONS = 4;
/** Longest header (characters). */
export const MAX_HEADER_CHARS = 12;
/** Fewest and most options per question. */
export const MIN_OPTIONS = 2;
/** Most options per question. */
export const MAX_OPTIONS = 4;

const text = (what: string): z.ZodString => z.string().trim().min(1, `${what} must not be empty`);

const option = z.strictObject({
  label: text("label").describe("The choice as the user sees it, a few words"),
  description: z.string().describe("What picking this choice means"),
});

const question = z.strictObject({
  question: text("question").describe("The full question, ending with a question mark"),
  header: text("header").max(MAX_HEADER_CHARS, `header must be at most ${MAX_HEADER_CHARS} characters`)
    .describe(`A short tag for the question (at most ${MAX_HEADER_CHARS} characters), like "Database"`),
  options: z.array(option)
    .min(MIN_OPTIONS, `give at least ${MIN_OPTIONS} options`)
    .max(MAX_OPTIONS, `give at most ${MAX_OPTIONS} options`)
    .describe(`${MIN_OPTIONS} to ${MAX_OPTIONS} choices; the user may always type another answer instead`)
    .superRefine((opts, ctx) => {
      const seen = new Set<string>();
      for (const [i, o] of opts.entries()) {
        if (seen.has(o.label)) {
          ctx.addIssue({
            code: "custom",
            path: [i, "label"],
            message: `label "${o.label}" is used twice: labels must be unique`,
          });
        }
        seen.add(o.label);
      }
    }),
  multiSelect: z.boolean().default(false).describe("Let the user pick several options. Default false"),
});

/**
 * Input of AskUserQuestion (after defaults).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { type AskUserQuestionInput, createAskUserQuestionTool } from "./ask_user_question.ts";
 * const input: AskUserQuestionInput = {
 *   questions: [{
 *     question: "Which database?",
 *     header: "Database",
 *     options: [{ label: "Postgres", description: "Relational" }, {
 *       label: "SQLite",
 *       description: "One file",
 *     }],
 *     multiSelect: false,
 *   }],
 * };
 * assert.ok(createAskUserQuestionTool().input.safeParse(input).success);
 * ```
 */
export interface AskUserQuestionInput {
  /** 1 to 4 questions. */
  questions: Question[];
  /** Answers keyed by question text, filled in by a client that already asked. */
  answers?: Record<string, string>;
}

const input: z.ZodType<AskUserQuestionInput> = z.strictObject({
  questions: z.array(question)
    .min(1, "ask at least 1 question")
    .max(MAX_QUESTIONS, `ask at most ${MAX_QUESTIONS} questions`)
    .describe(`1 to ${MAX_QUESTIONS} questions to ask at once`)
    .superRefine((qs, ctx) => {
      const seen = new Set<string>();
      for (const [i, q] of qs.entries()) {
        if (seen.has(q.question)) {
          ctx.addIssue({
            code: "custom",
            path: [i, "question"],
            message: `question "${q.question}" is asked twice: question texts must be unique`,
          });
        }
        seen.add(q.question);
      }
    }),
  answers: z.record(z.string(), z.string()).optional()
    .describe("Answers keyed by question text, filled in by the client that collected them; leave it out"),
});

type Input = AskUserQuestionInput;

/**
 * Structured result of AskUserQuestion.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { runTool, ToolRegistry } from "../../mod.ts";
 * import { type AskUserQuestionResult, createAskUserQuestionTool } from "./ask_user_question.ts";
 * const tool = createAskUserQuestionTool({
 *   askUser: (qs) => Promise.resolve({ [qs[0].question]: "SQLite" }),
 * });
 * const r = await runTool(new ToolRegistry([tool]), {
 *   name: "AskUserQuestion",
 *   input: {
 *     questions: [{
 *       question: "Which database?",
 *       header: "Database",
 *       options: [{ label: "Postgres", description: "Relational" }, {
 *         label: "SQLite",
 *         description: "One file",
 *       }],
 *     }],
 *   },
 * });
 * assert.equal((r.data as AskUserQuestionResult).answers["Which database?"], "SQLite");
 * ```
 */
export interface AskUserQuestionResult {
  /** The questions as asked. */
  questions: Question[];
  /** Answer per question text; several labels are joined with ", ". */
  answers: Record<string, string>;
}

/**
 * Makes AskUserQuestion `{questions: [{question, header, options: [{label, description}], multiSelect?}], answers?}`
 * around a handler. Without `askUser` (and without pre-filled `answers`) a call fails with a clear error.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { runTool, ToolRegistry } from "../../mod.ts";
 * import { createAskUserQuestionTool } from "./ask_user_question.ts";
 * const tool = createAskUserQuestionTool({ askUser: (qs) => Promise.resolve({ [qs[0].question]: "Yes" }) });
 * const r = await runTool(new ToolRegistry([tool]), {
 *   name: "AskUserQuestion",
 *   input: {
 *     questions: [{
 *       question: "Go on?",
 *       header: "Confirm",
 *       options: [{ label: "Yes", description: "Continue" }, { label: "No", description: "Stop" }],
 *     }],
 *   },
 * });
 * assert.ok(r.ok && r.text.includes('"Go on?" = "Yes"'));
 * ```
 */
export function createAskUserQuestionTool(
  options: InteractionOptions = {},
): Tool<AskUserQuestionInput, AskUserQuestionResult> {
  return defineTool({
    name: "AskUserQuestion",
    description: "Asks the user 1 to 4 multiple-choice questions and waits for the answers. Use it when a " +
      "choice is the user's to make (requirements, trade-offs, preferences) and you cannot infer it. Each " +
      "question has a short header and 2 to 4 labelled options; the user may also answer in their own words.",
    sideEffect: "Blocking",
    input,
    timeoutMs: 0, // a person takes the time they take; the call's signal still stops it
    summarize: (i) => i.questions.map((q) => q.question).join(" / "),
    execute: async (i, ctx) => {
      const questions: Question[] = i.questions.map((q) => ({
        question: q.question,
        header: q.header,
        options: q.options.map((o) => ({ label: o.label, description: o.description })),
        multiSelect: q.multiSelect,
      }));
      let raw: Record<string, unknown>;
      if (i.answers && questions.every((q) => q.question in i.answers!)) {
        raw = i.answers;
      } else if (options.askUser) {
        const got = await options.askUser(questions, ctx.signal);
        if (ctx.signal.aborted) throw new AbortedError("The question was cancelled before the user answered");
        if (got === null || typeof got !== "object") {
          throw new InvalidInputError(
            "The input handler returned no answers: it must resolve with an object",
          );
        }
        raw = got as Record<string, unknown>;
      } else {
        throw new UnavailableError(
          "No user-input handler is set, so nobody can answer: decide with the information you have " +
            "and state your assumptions, or ask in your reply",
        );
      }
      const answers: Record<string, string> = {};
      for (const q of questions) answers[q.question] = normalize(raw[q.question]);
      const lines = questions.map((q) => `"${q.question}" = "${answers[q.question]}"`);
      return {
        text: `The user answered:\n${lines.join("\n")}\nGo on with these answers in mind.`,
        data: { questions, answers },
      };
    },
  });
}

function normalize(value: unknown): string {
  if (Array.isArray(value)) {
    const parts = value.map((v) => String(v).trim()).filter((v) => v !== "");
    return parts.length ? parts.join(", ") : "(no answer)";
  }
  if (value === undefined || value === null) return "(no answer)";
  const s = String(value).trim();
  return s === "" ? "(no answer)" : s;
}

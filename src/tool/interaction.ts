/**
 * The handlers through which tools reach a person: questions
 * (AskUserQuestion) and plan approval (ExitPlanMode). The CLI passes terminal
 * handlers (`src/cli/interactive.ts`); a library passes its own, or none.
 *
 * @module
 */

/**
 * One choice of a question.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import type { QuestionOption } from "./interaction.ts";
 * const option: QuestionOption = { label: "SQLite", description: "One file, no server" };
 * assert.equal(option.label, "SQLite");
 * ```
 */
export interface QuestionOption {
  /** Short label the user picks (unique within its question). */
  label: string;
  /** What picking it means. */
  description: string;
}

/**
 * One question put to the user.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import type { Question } from "./interaction.ts";
 * const question: Question = {
 *   question: "Which database?",
 *   header: "Database",
 *   options: [{ label: "Postgres", description: "Relational" }, {
 *     label: "SQLite",
 *     description: "One file",
 *   }],
 *   multiSelect: false,
 * };
 * assert.equal(question.options.length, 2);
 * ```
 */
export interface Question {
  /** The full question text (unique within a call). */
  question: string;
  /** A short tag shown before the question, at most 12 characters. */
  header: string;
  /** The 2 to 4 choices. */
  options: QuestionOption[];
  /** Whether several labels may be picked. */
  multiSelect: boolean;
}

/**
 * Answers keyed by question text: a label, several labels (multi-select) or
 * free text the user typed instead.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import type { UserAnswers } from "./interaction.ts";
 * const answers: UserAnswers = { "Which database?": "SQLite", "Which tests?": ["unit", "e2e"] };
 * assert.deepEqual(answers["Which tests?"], ["unit", "e2e"]);
 * ```
 */
export type UserAnswers = Record<string, string | readonly string[]>;

/**
 * Asks the user the questions and resolves with the answers; rejects when aborted.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import type { AskUserHandler } from "./interaction.ts";
 * // answers every question with its first option
 * const firstOption: AskUserHandler = (questions) =>
 *   Promise.resolve(Object.fromEntries(questions.map((q) => [q.question, q.options[0].label])));
 * const answers = await firstOption([{
 *   question: "Go on?",
 *   header: "Confirm",
 *   options: [{ label: "Yes", description: "Continue" }, { label: "No", description: "Stop" }],
 *   multiSelect: false,
 * }], new AbortController().signal);
 * assert.equal(answers["Go on?"], "Yes");
 * ```
 */
export type AskUserHandler = (questions: readonly Question[], signal: AbortSignal) => Promise<UserAnswers>;

/**
 * A permission the plan asks for, by meaning (`{tool: "Bash", prompt: "run the tests"}`).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import type { AllowedPrompt } from "./interaction.ts";
 * const prompt: AllowedPrompt = { tool: "Bash", prompt: "run the tests" };
 * assert.equal(prompt.tool, "Bash");
 * ```
 */
export interface AllowedPrompt {
  /** The tool the permission is for. */
  tool: "Bash";
  /** What the tool would be used for, in words. */
  prompt: string;
}

/**
 * What ExitPlanMode shows the person who approves the plan.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import type { PlanApprover, PlanRequest } from "./interaction.ts";
 * const seen: PlanRequest[] = [];
 * const approver: PlanApprover = (request) => {
 *   seen.push(request);
 *   return Promise.resolve(true);
 * };
 * await approver(
 *   { plan: "1. Fix", allowedPrompts: [], input: { plan: "1. Fix" } },
 *   new AbortController().signal,
 * );
 * assert.equal(seen[0].plan, "1. Fix");
 * ```
 */
export interface PlanRequest {
  /** The plan text, when the model sent one (the `plan` key). */
  plan?: string;
  /** Permissions the plan asks for. */
  allowedPrompts: AllowedPrompt[];
  /** The whole input, extra keys included. */
  input: Record<string, unknown>;
}

/**
 * A plan decision with optional feedback for the model.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import type { PlanDecision } from "./interaction.ts";
 * const rejected: PlanDecision = { approved: false, feedback: "Add a test first" };
 * assert.equal(rejected.approved, false);
 * ```
 */
export interface PlanDecision {
  /** Whether the plan is approved. */
  approved: boolean;
  /** What the person said (why not, or what to change). */
  feedback?: string;
}

/**
 * Decides whether the session may leave plan mode with this plan.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import type { PlanApprover } from "./interaction.ts";
 * // approves plans that mention tests
 * const needsTests: PlanApprover = (request) =>
 *   Promise.resolve(
 *     request.plan?.includes("test") ? true : { approved: false, feedback: "Add a test step" },
 *   );
 * assert.deepEqual(
 *   await needsTests({ plan: "1. Fix", allowedPrompts: [], input: {} }, new AbortController().signal),
 *   { approved: false, feedback: "Add a test step" },
 * );
 * ```
 */
export type PlanApprover = (request: PlanRequest, signal: AbortSignal) => Promise<boolean | PlanDecision>;

/**
 * The handlers of the session tools that wait for a person
 * (`BuiltinToolOptions.interaction`). A missing handler makes its tool fail
 * with a clear error instead of waiting forever.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { builtinTools } from "../tools/mod.ts";
 * import type { InteractionOptions } from "./interaction.ts";
 * const interaction: InteractionOptions = {
 *   askUser: (questions) =>
 *     Promise.resolve(Object.fromEntries(questions.map((q) => [q.question, q.options[0].label]))),
 *   approvePlan: () => Promise.resolve(true),
 * };
 * assert.ok(builtinTools({ interaction }).some((t) => t.name === "ExitPlanMode"));
 * ```
 */
export interface InteractionOptions {
  /** Answers AskUserQuestion. */
  askUser?: AskUserHandler;
  /** Approves ExitPlanMode. */
  approvePlan?: PlanApprover;
}

/**
 * The handlers through which tools reach a person: questions
 * (AskUserQuestion) and plan approval (ExitPlanMode). The CLI passes terminal
 * handlers (`src/cli/interactive.ts`); a library passes its own, or none.
 *
 * @module
 */

/** One choice of a question. */
export interface QuestionOption {
  /** Short label the user picks (unique within its question). */
  label: string;
  /** What picking it means. */
  description: string;
}

/** One question put to the user. */
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
 */
export type UserAnswers = Record<string, string | readonly string[]>;

/** Asks the user the questions and resolves with the answers; rejects when aborted. */
export type AskUserHandler = (questions: readonly Question[], signal: AbortSignal) => Promise<UserAnswers>;

/** A permission the plan asks for, by meaning (`{tool: "Bash", prompt: "run the tests"}`). */
export interface AllowedPrompt {
  /** The tool the permission is for. */
  tool: "Bash";
  /** What the tool would be used for, in words. */
  prompt: string;
}

/** What ExitPlanMode shows the person who approves the plan. */
export interface PlanRequest {
  /** The plan text, when the model sent one (the `plan` key). */
  plan?: string;
  /** Permissions the plan asks for. */
  allowedPrompts: AllowedPrompt[];
  /** The whole input, extra keys included. */
  input: Record<string, unknown>;
}

/** A plan decision with optional feedback for the model. */
export interface PlanDecision {
  /** Whether the plan is approved. */
  approved: boolean;
  /** What the person said (why not, or what to change). */
  feedback?: string;
}

/** Decides whether the session may leave plan mode with this plan. */
export type PlanApprover = (request: PlanRequest, signal: AbortSignal) => Promise<boolean | PlanDecision>;

/**
 * The handlers of the session tools that wait for a person
 * (`BuiltinToolOptions.interaction`). A missing handler makes its tool fail
 * with a clear error instead of waiting forever.
 */
export interface InteractionOptions {
  /** Answers AskUserQuestion. */
  askUser?: AskUserHandler;
  /** Approves ExitPlanMode. */
  approvePlan?: PlanApprover;
}

/**
 * ExitPlanMode: presents the plan to the approver and, once approved, moves
 * the session out of plan mode (back to the mode it was in before).
 *
 * @module
 */
import { z } from "zod";
import { AbortedError, ConflictError, PermissionDeniedError, UnavailableError } from "../errors.ts";
import { defineTool, type Tool } from "../tool/define_tool.ts";
import type { Session } from "../session/session.ts";
import type { PermissionMode } from "../permissions/modes.ts";
import type { AllowedPrompt, InteractionOptions, PlanDecision } from "../tool/interaction.ts";

const SLOT = "plan";

/**
 * What the session remembers about plan mode (the `plan` slot).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { Session } from "../session/session.ts";
 * import { enterPlanMode, type PlanState, planState } from "./exit_plan_mode.ts";
 * await using session = new Session({ roots: [Deno.cwd()], mode: "acceptEdits" });
 * enterPlanMode(session);
 * const state: PlanState = planState(session);
 * assert.equal(state.previousMode, "acceptEdits");
 * ```
 */
export interface PlanState {
  /** The mode to go back to when the plan is approved. */
  previousMode?: PermissionMode;
  /** Permissions the approved plans asked for, by meaning. */
  allowedPrompts: AllowedPrompt[];
}

/**
 * The session's plan-mode state: the mode to return to and the allowed prompts.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { Session } from "../session/session.ts";
 * import { planState } from "./exit_plan_mode.ts";
 * assert.equal(planState(new Session({ roots: [Deno.cwd()] })).allowedPrompts.length, 0);
 * ```
 */
export function planState(session: Session): PlanState {
  return session.slot<PlanState>(SLOT, () => ({ allowedPrompts: [] }));
}

/**
 * Puts a session in plan mode and remembers the mode it was in, so an
 * approved ExitPlanMode returns there. Does nothing when already in plan mode.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { Session } from "../session/session.ts";
 * import { enterPlanMode } from "./exit_plan_mode.ts";
 * const s = new Session({ roots: [Deno.cwd()], mode: "acceptEdits" });
 * enterPlanMode(s);
 * assert.equal(s.mode, "plan");
 * ```
 */
export function enterPlanMode(session: Session): void {
  if (session.mode === "plan") return;
  planState(session).previousMode = session.mode;
  session.setMode("plan");
}

/**
 * Input of ExitPlanMode: `allowedPrompts` plus any extra keys (such as `plan`).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { createExitPlanModeTool, type ExitPlanModeInput } from "./exit_plan_mode.ts";
 * const input: ExitPlanModeInput = {
 *   plan: "1. Fix the parser\n2. Run the tests",
 *   allowedPrompts: [{ tool: "Bash", prompt: "run the tests" }],
 * };
 * assert.ok(createExitPlanModeTool().input.safeParse(input).success);
 * ```
 */
export interface ExitPlanModeInput {
  /** Permissions the plan needs, by meaning. */
  allowedPrompts?: AllowedPrompt[];
  /** Extra keys pass through. */
  [key: string]: unknown;
}

const input: z.ZodType<ExitPlanModeInput> = z.looseObject({
  allowedPrompts: z.array(
    z.strictObject({
      tool: z.literal("Bash").describe('The tool the permission is for: "Bash"'),
      prompt: z.string().trim().min(1, "prompt must not be empty")
        .describe('What the command would do, in words ("run the tests", "install dependencies")'),
    }),
  ).optional().describe("Permissions the plan needs, described by meaning rather than exact commands"),
});

type Input = ExitPlanModeInput;

/**
 * Structured result of ExitPlanMode.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { runTool, Session, ToolRegistry } from "../../mod.ts";
 * import { createExitPlanModeTool, type ExitPlanModeResult } from "./exit_plan_mode.ts";
 * const tool = createExitPlanModeTool({
 *   approvePlan: () => Promise.resolve({ approved: true, feedback: "Go" }),
 * });
 * await using session = new Session({ roots: [Deno.cwd()], mode: "plan" });
 * const r = await runTool(new ToolRegistry([tool]), { name: "ExitPlanMode", input: { plan: "1. Fix" } }, {
 *   session,
 * });
 * const data = r.data as ExitPlanModeResult;
 * assert.equal(data.mode, "default");
 * assert.equal(data.feedback, "Go");
 * ```
 */
export interface ExitPlanModeResult {
  /** Always true in a result; a rejected plan is an error. */
  approved: true;
  /** The mode the session is in now. */
  mode: PermissionMode;
  /** The plan text, when one was sent. */
  plan?: string;
  /** The permissions that came with the plan. */
  allowedPrompts: AllowedPrompt[];
  /** What the approver said. */
  feedback?: string;
}

/**
 * Makes ExitPlanMode `{allowedPrompts?: [{tool: "Bash", prompt}]}` plus extra
 * keys (a `plan` string is shown to the approver). Outside plan mode, or
 * without an approver, a call fails with a clear message.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { runTool, Session, ToolRegistry } from "../../mod.ts";
 * import { createExitPlanModeTool } from "./exit_plan_mode.ts";
 * const tool = createExitPlanModeTool({ approvePlan: () => Promise.resolve(true) });
 * const session = new Session({ roots: [Deno.cwd()], mode: "plan" });
 * const r = await runTool(new ToolRegistry([tool]), { name: "ExitPlanMode", input: { plan: "1. Fix" } }, {
 *   session,
 * });
 * assert.ok(r.ok && session.mode === "default");
 * ```
 */
export function createExitPlanModeTool(
  options: InteractionOptions = {},
): Tool<ExitPlanModeInput, ExitPlanModeResult> {
  return defineTool({
    name: "ExitPlanMode",
    description: "Presents your plan to the user and asks to leave plan mode. In plan mode you may only " +
      "read and explore; no file edits, commands or network calls run. When the plan is ready, call this " +
      "with the plan (a `plan` key in Markdown) and the Bash permissions it needs; on approval you may " +
      "carry it out, on rejection revise the plan with the feedback.",
    sideEffect: "None",
    input,
    timeoutMs: 0, // waits for a person; the call's signal still stops it
    summarize: (i) => (typeof i.plan === "string" ? i.plan.split("\n")[0].slice(0, 120) : "present the plan"),
    execute: async (i, ctx) => {
      const session = ctx.session;
      if (session.mode !== "plan") {
        throw new ConflictError(
          `ExitPlanMode only applies in plan mode: the session is in "${session.mode}" mode, so go on without it`,
        );
      }
      if (!options.approvePlan) {
        throw new UnavailableError(
          "No plan approver is set, so plan mode cannot be left from here: present the plan in your reply " +
            "and stop; the user can change the permission mode",
        );
      }
      const allowedPrompts: AllowedPrompt[] = (i.allowedPrompts ?? []).map((p) => ({
        tool: p.tool,
        prompt: p.prompt,
      }));
      const plan = typeof i.plan === "string" ? i.plan : undefined;
      const answer = await options.approvePlan({ plan, allowedPrompts, input: { ...i } }, ctx.signal);
      if (ctx.signal.aborted) throw new AbortedError("The plan review was cancelled before a decision");
      const decision: PlanDecision = typeof answer === "boolean" ? { approved: answer } : answer;
      const feedback = decision.feedback?.trim() || undefined;
      if (!decision.approved) {
        throw new PermissionDeniedError(
          `The user did not approve the plan${
            feedback ? `: "${feedback}"` : ""
          }: stay in plan mode, revise the plan and present it again`,
        );
      }
      // Re-check: the mode may have changed while the person was deciding.
      if (session.mode !== "plan") {
        throw new ConflictError(
          `The session left plan mode while the plan was reviewed: it is in "${session.mode}" mode`,
        );
      }
      const st = planState(session);
      const mode: PermissionMode = st.previousMode && st.previousMode !== "plan"
        ? st.previousMode
        : "default";
      st.previousMode = undefined;
      st.allowedPrompts.push(...allowedPrompts);
      session.setMode(mode);
      session.emit({ type: "plan", approved: true, plan, allowedPrompts, mode });
      const text = [
        `The user approved the plan. The session is now in "${mode}" mode: carry out the plan.`,
        feedback ? `The user added: "${feedback}"` : "",
        allowedPrompts.length
          ? `Permissions asked for: ${allowedPrompts.map((p) => `Bash: ${p.prompt}`).join("; ")}`
          : "",
      ].filter(Boolean).join("\n");
      return { text, data: { approved: true, mode, plan, allowedPrompts, feedback } };
    },
  });
}

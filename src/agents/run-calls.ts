import type { HandoffInfo } from '../messages/handoff-brief.js';
import type { FunctionCall, FunctionExecutionResult } from '../messages/message.js';
import { valueText } from '../value-text.js';
import type { Handoff } from './handoff.js';
import {
  type HandoffChoice,
  handoffResult,
  interceptHandoffs,
  type OnHandoff,
} from './handoff-middleware.js';
import type { Tool } from './tool.js';
import type { StateBatch } from './turn-state.js';
import {
  composeToolMiddleware,
  type Timer,
  type ToolErrorHandler,
  type ToolMiddleware,
  toolExecutor,
} from './tool-execution.js';

/** What running an agent's tool calls needs besides the calls. */
export interface CallSetup {
  readonly agent: string;
  readonly tools: ReadonlyMap<string, Tool>;
  readonly middleware: readonly ToolMiddleware[];
  readonly timer: Timer;
  readonly signal: AbortSignal;
  readonly sessionId: string;
  /** Every tool name the model was offered, for the message about an unknown tool. */
  readonly offered: readonly string[];
  readonly onToolError?: ToolErrorHandler | undefined;
  /** The conversation state of this batch of calls. */
  readonly state?: StateBatch | undefined;
  /** The handoff that gave the agent the floor, for the tools' `ctx.handoff`. */
  readonly handoff?: HandoffInfo | undefined;
}

/**
 * Runs `calls` through the handoff middleware (when `onHandoff` is given) and the agent's own
 * middleware; a call with a `fixed` result gets it without running. Calls start in the model's
 * order, so the handoff middleware sees the first handoff first, and each result is rebuilt so
 * that whatever a middleware returns, it pairs with its call. When every call is a handoff (the
 * usual answer in a workflow) no tool runs, and the results are returned at once, not as a promise.
 */
export function runCalls(
  calls: readonly FunctionCall[],
  fixed: ReadonlyMap<string, FunctionExecutionResult> | undefined,
  handoffs: ReadonlyMap<string, Handoff>,
  setup: CallSetup,
  onHandoff: OnHandoff = () => {},
): FunctionExecutionResult[] | Promise<FunctionExecutionResult[]> {
  // An answer that only hands off runs no tool: the handoff middleware answers each call itself,
  // before any other middleware sees it.
  const asHandoffs = calls.map((call) => ({ call, handoff: handoffs.get(call.name) }));
  if (
    asHandoffs.every((c): c is { call: FunctionCall; handoff: Handoff } => c.handoff !== undefined)
  ) {
    const choice: HandoffChoice = { chosen: undefined };
    return asHandoffs.map(({ call, handoff }) => handoffResult(call, handoff, choice, onHandoff));
  }
  return runTools(calls, fixed, handoffs, setup, onHandoff);
}

async function runTools(
  calls: readonly FunctionCall[],
  fixed: ReadonlyMap<string, FunctionExecutionResult> | undefined,
  handoffs: ReadonlyMap<string, Handoff>,
  setup: CallSetup,
  onHandoff: OnHandoff,
): Promise<FunctionExecutionResult[]> {
  const gate: ToolMiddleware = async (call, next) => fixed?.get(call.id) ?? next(call);
  const run = composeToolMiddleware(
    [interceptHandoffs(handoffs, onHandoff), gate, ...setup.middleware],
    toolExecutor(setup.tools, {
      context:
        setup.handoff === undefined
          ? { signal: setup.signal, sessionId: setup.sessionId, agent: setup.agent }
          : {
              signal: setup.signal,
              sessionId: setup.sessionId,
              agent: setup.agent,
              handoff: setup.handoff,
            },
      offered: setup.offered,
      timer: setup.timer,
      onToolError: setup.onToolError,
      state: setup.state,
    }),
  );
  return Promise.all(
    calls.map(async (c): Promise<FunctionExecutionResult> => {
      const r = await run(c);
      return {
        callId: c.id,
        name: c.name,
        content: valueText(r.content),
        isError: r.isError === true,
      };
    }),
  );
}

/** The results of `calls` in their order: those from before a pause, then the fresh ones. */
export function inCallOrder(
  calls: readonly FunctionCall[],
  earlier: ReadonlyMap<string, FunctionExecutionResult>,
  fresh: FunctionExecutionResult[],
): FunctionExecutionResult[] {
  if (earlier.size === 0) return fresh;
  const byId = new Map(fresh.map((r) => [r.callId, r]));
  return calls.flatMap((c) => {
    const r = earlier.get(c.id) ?? byId.get(c.id);
    return r === undefined ? [] : [r];
  });
}

import type { Rewiring } from '../../agents/agent-rewire.js';
import { applyStateOps, produceState, type StatePatchOp } from '../../agents/conversation-state.js';
import type { Tool, ToolContext } from '../../agents/tool.js';
import type { ToolMiddleware } from '../../agents/tool-execution.js';
import type { ReplayController } from './replay-controller.js';

/** Where a replay takes tool results from: the recording (default) or the tools themselves. */
export type ReplayTools = 'recorded' | 'live';

/**
 * How a replayed agent's tool calls are answered, with their state updates (§18).
 *
 * Recorded: the recorded result, and a call that updated the state runs a stand-in of its tool
 * that makes the recorded updates through `ctx.updateState`, so they apply as the tool's did (in
 * call order when the batch ends). The agent's own middleware never runs, as no tool does.
 *
 * Live: the tools run; each result and each call's updates are checked against the recorded.
 *
 * Either way, a call found in doubt does not run at first: its run is cut off there.
 */
export function replayedTools(
  agent: string,
  controller: ReplayController,
  tools: ReplayTools,
): Omit<Rewiring, 'client'> {
  // The calls found in doubt whose run the replay cuts off now (see `lose`).
  const losing = new Set<string>();
  if (tools === 'recorded') {
    const answer: ToolMiddleware = async (call, next) => {
      if (controller.loses(agent, call.id)) {
        losing.add(call.id);
        return next(call);
      }
      const recorded = controller.recordedResult(agent, call);
      if (recorded.isError || controller.recordedUpdates(agent, call.id).length === 0) {
        return recorded;
      }
      const applied = await next(call);
      // Only a stand-in that could not make the updates (the state refused them) fails here.
      if (applied.isError) controller.checkUpdates(agent, call, applied.content);
      return recorded;
    };
    return {
      middleware: [answer],
      ownMiddleware: false,
      tools: (original) =>
        original.map((t) =>
          withExecute(t, (_args, ctx) => {
            if (losing.delete(ctx.callId)) return lose(controller, ctx);
            const ops = controller.recordedUpdates(agent, ctx.callId);
            const state = ctx.state;
            if (ops.length > 0) ctx.updateState(() => applyStateOps(state, ops));
            return '';
          }),
        ),
    };
  }
  // The updates each call running now made, by call id (unique in a thread).
  const made = new Map<string, StatePatchOp[]>();
  const check: ToolMiddleware = async (call, next) => {
    if (controller.loses(agent, call.id)) {
      losing.add(call.id);
      return next(call);
    }
    made.delete(call.id);
    const result = await next(call);
    const ops = made.get(call.id) ?? [];
    made.delete(call.id);
    // A call of a run the replay cut off (see `lose`) is not committed: nothing to compare.
    if (controller.cutOff) return result;
    controller.liveResult(agent, call, result);
    // The updates of a call that failed are discarded.
    controller.checkUpdates(agent, call, result.isError ? [] : ops);
    return result;
  };
  return {
    middleware: [check],
    tools: (original) =>
      original.map((t) =>
        withExecute(t, (args, ctx) =>
          losing.delete(ctx.callId)
            ? lose(controller, ctx)
            : t.execute(
                args,
                noting(ctx, t.name, (ops) => made.set(ctx.callId, ops)),
              ),
        ),
      ),
  };
}

/**
 * A call found in doubt, at its first run: its run was cut off while it ran (cancelled, or the
 * process died), so the replay cancels the run and the call waits for that, as it did. The
 * session then finds it in doubt as the recorded one did.
 */
function lose(controller: ReplayController, ctx: ToolContext): Promise<never> {
  controller.cancelRun();
  return new Promise((_resolve, reject) => {
    const signal = ctx.signal;
    if (signal.aborted) reject(signal.reason);
    else signal.addEventListener('abort', () => reject(signal.reason), { once: true });
  });
}

/**
 * `ctx` whose `updateState` also notes the operations the call's updates came to so far. They
 * are made here on the call's state as it is, then given to the real `updateState` whole, which
 * checks the new state against the schema as ever.
 */
function noting(ctx: ToolContext, tool: string, note: (ops: StatePatchOp[]) => void): ToolContext {
  const ops: StatePatchOp[] = [];
  return {
    ...ctx,
    get state() {
      return ctx.state;
    },
    updateState(recipe) {
      const base = ctx.state;
      const made = produceState(base, recipe, undefined, `Tool "${tool}": updateState()`);
      ctx.updateState(() => made.value);
      ops.push(...made.ops);
      note([...ops]);
    },
  };
}

/** A copy of `t` (name, schema, approval rule, effect and all) that runs `execute` instead. */
function withExecute(t: Tool, execute: Tool['execute']): Tool {
  return {
    name: t.name,
    description: t.description,
    parameters: t.parameters,
    schema: t.schema,
    timeoutMs: t.timeoutMs,
    needsApproval: t.needsApproval,
    ...(t.effect === undefined ? {} : { effect: t.effect }),
    execute,
  };
}

import type { FunctionCall, FunctionExecutionResult } from '../messages/message.js';
import { type ToolOutcome, traceToolExecution } from '../observability/gen-ai-spans.js';
import { errorTypeOf } from '../observability/tracing.js';
import { formatPath } from '../zod-issues.js';
import type { Tool, ToolContext } from './tool.js';
import { type CallState, type StateBatch, TurnState } from './turn-state.js';
import { redactSecrets } from '../redact.js';
import { thrownText, valueText } from '../value-text.js';

/** Answers one tool call. */
export type ToolHandler = (call: FunctionCall) => Promise<FunctionExecutionResult>;

/**
 * A layer around tool execution: it may change the call it passes to `next`, change the result,
 * or answer the call itself without calling `next` (as the handoff middleware does).
 * @example const log: ToolMiddleware = async (call, next) => { seen.push(call.name); return next(call); };
 */
export type ToolMiddleware = (
  call: FunctionCall,
  next: (call: FunctionCall) => Promise<FunctionExecutionResult>,
) => Promise<FunctionExecutionResult>;

/** Schedules `fire` after `ms` milliseconds and returns a function that cancels it. */
export type Timer = (ms: number, fire: () => void) => () => void;

/** `setTimeout`, as a `Timer`. */
export const realTimer: Timer = (ms, fire) => {
  const handle = setTimeout(fire, ms);
  return () => clearTimeout(handle);
};

/** Runs `middleware` as an onion around `last`; the first layer is the outermost. */
export function composeToolMiddleware(
  middleware: readonly ToolMiddleware[],
  last: ToolHandler,
): ToolHandler {
  return (call) => {
    let index = -1;
    const dispatch = (i: number, current: FunctionCall): Promise<FunctionExecutionResult> => {
      if (i <= index) {
        return Promise.reject(new Error(`Tool middleware #${i} called next() more than once.`));
      }
      index = i;
      const layer = middleware[i];
      return layer ? layer(current, (next) => dispatch(i + 1, next)) : last(current);
    };
    return dispatch(0, call);
  };
}

/** Where a tool threw: what `onToolError` receives besides the error. */
export interface ToolErrorInfo {
  readonly tool: string;
  readonly callId: string;
  readonly agent: string;
  readonly sessionId: string;
}

/** Sees each error a tool's `execute` throws, stack and all (the model gets its message only). */
export type ToolErrorHandler = (error: unknown, info: ToolErrorInfo) => void;

/** Options of `toolExecutor()`. */
export interface ToolExecutorOptions {
  /** The context of every call; each call adds its own `callId` and state. */
  context: Omit<ToolContext, 'callId' | 'state' | 'updateState'>;
  /** The conversation state of the calls' batch; none: an empty state. */
  state?: StateBatch | undefined;
  /** Every tool name the model was offered, for the message about an unknown tool. */
  offered: readonly string[];
  timer: Timer;
  onToolError?: ToolErrorHandler | undefined;
}

/**
 * Answers calls by running the matching tool. It never rejects: an unknown tool, arguments that
 * are not JSON or fail the schema, a thrown error, a timeout or a cancellation all become an
 * `isError` result whose message names the tool. A thrown error also goes, whole, to
 * `onToolError` and to the span's exception event; a throwing `onToolError` rejects the call.
 */
export function toolExecutor(
  tools: ReadonlyMap<string, Tool>,
  options: ToolExecutorOptions,
): ToolHandler {
  const onAbort = abortFanOut(options.context.signal);
  return (call) =>
    traceToolExecution({ call, known: tools.has(call.name) }, () =>
      execute(call, tools, options, onAbort),
    );
}

async function execute(
  call: FunctionCall,
  tools: ReadonlyMap<string, Tool>,
  options: ToolExecutorOptions,
  onAbort: AbortSubscription,
): Promise<ToolOutcome<FunctionExecutionResult>> {
  const prepared = prepareCall(tools, call, options.offered);
  if (!prepared.ok) {
    const { result, errorType } = prepared;
    return { result, errorType, errorMessage: result.content };
  }
  const outcome = await runWithTimeout(prepared.tool, prepared.args, call.id, options, onAbort);
  if (outcome.ok) {
    options.state?.keep(call.id);
    return {
      result: { callId: call.id, name: call.name, content: outcome.content, isError: false },
    };
  }
  const { exception } = outcome;
  if (exception !== undefined) {
    const { agent, sessionId } = options.context;
    options.onToolError?.(exception.error, { tool: call.name, callId: call.id, agent, sessionId });
  }
  return {
    result: { callId: call.id, name: call.name, content: outcome.content, isError: true },
    errorType: outcome.errorType,
    errorMessage: outcome.content,
    ...(exception === undefined ? {} : { exception }),
  };
}

/** A call whose tool is known and whose arguments passed its schema, or the error result. */
export type PreparedCall =
  | { ok: true; tool: Tool; args: unknown }
  | {
      ok: false;
      result: FunctionExecutionResult;
      errorType: 'unknown_tool' | 'invalid_arguments';
    };

/** Finds the call's tool and validates its arguments (what happens before a tool runs). */
export function prepareCall(
  tools: ReadonlyMap<string, Tool>,
  call: FunctionCall,
  offered: readonly string[],
): PreparedCall {
  const fail = (
    content: string,
    errorType: 'unknown_tool' | 'invalid_arguments' = 'invalid_arguments',
  ): PreparedCall => ({
    ok: false,
    result: { callId: call.id, name: call.name, content, isError: true },
    errorType,
  });
  const found = tools.get(call.name);
  if (found === undefined) return fail(unknownTool(call.name, offered), 'unknown_tool');
  const args = parseArguments(call);
  if (!args.ok) return fail(args.error);
  const parsed = found.parameters.safeParse(args.value);
  if (!parsed.success) {
    const issues = parsed.error.issues.map((i) => `${formatPath(i.path)}: ${i.message}`);
    return fail(
      `Tool "${call.name}" received invalid arguments: ${issues.join('; ')}. ` +
        'Fix them and call the tool again.',
    );
  }
  return { ok: true, tool: found, args: parsed.data };
}

function unknownTool(name: string, offered: readonly string[]): string {
  const available =
    offered.length > 0 ? `Available tools: ${offered.join(', ')}.` : 'No tools are available.';
  return `Unknown tool "${name}". ${available}`;
}

type Outcome = { ok: true; value: unknown } | { ok: false; error: string };

function parseArguments(call: FunctionCall): Outcome {
  // Some servers send "" for a tool without parameters.
  const text = call.arguments.trim() === '' ? '{}' : call.arguments;
  try {
    return { ok: true, value: JSON.parse(text) };
  } catch {
    const preview = text.length > 200 ? `${text.slice(0, 200)}…` : text;
    return {
      ok: false,
      error:
        `Tool "${call.name}" received arguments that are not valid JSON: ${preview}. ` +
        'Send the arguments as one JSON object.',
    };
  }
}

/** Subscribes to the abort of a signal; returns a function that unsubscribes. */
type AbortSubscription = (fire: () => void) => () => void;

/**
 * One abort listener on `signal` for every call of an executor: a response with many parallel tool
 * calls would otherwise add one listener per call to the run's signal and make Node print
 * `MaxListenersExceededWarning`. The listener is attached while at least one call is running.
 */
function abortFanOut(signal: AbortSignal): AbortSubscription {
  const waiting = new Set<() => void>();
  const fireAll = () => {
    for (const fire of [...waiting]) fire();
    waiting.clear();
  };
  return (fire) => {
    if (waiting.size === 0) signal.addEventListener('abort', fireAll, { once: true });
    waiting.add(fire);
    return () => {
      if (waiting.delete(fire) && waiting.size === 0) {
        signal.removeEventListener('abort', fireAll);
      }
    };
  };
}

async function runWithTimeout(
  found: Tool,
  args: unknown,
  callId: string,
  { context, timer, state }: ToolExecutorOptions,
  onAbort: AbortSubscription,
): Promise<
  | { ok: true; content: string }
  | { ok: false; content: string; errorType: string; exception?: { readonly error: unknown } }
> {
  const controller = new AbortController();
  const name = found.name;
  const own = (state ?? new TurnState().batch()).forCall(callId, name);
  let cancelTimer = () => {};
  let unsubscribe = () => {};
  try {
    return await new Promise((resolve) => {
      const cancel = () => {
        controller.abort(context.signal.reason);
        resolve({ ok: false, content: `Tool "${name}" was cancelled.`, errorType: 'cancelled' });
      };
      if (context.signal.aborted) return cancel();
      unsubscribe = onAbort(cancel);
      cancelTimer = timer(found.timeoutMs, () => {
        controller.abort(new Error(`Tool "${name}" timed out.`));
        resolve({
          ok: false,
          content: `Tool "${name}" timed out after ${found.timeoutMs} ms.`,
          errorType: 'timeout',
        });
      });
      Promise.resolve()
        .then(() => found.execute(args, callContext(context, callId, controller.signal, own)))
        .then(
          (value) => resolve({ ok: true, content: valueText(value) }),
          (error: unknown) =>
            resolve({
              ok: false,
              content: `Tool "${name}" failed: ${redactSecrets(thrownText(error))}`,
              errorType: errorTypeOf(error),
              exception: { error },
            }),
        );
    });
  } finally {
    cancelTimer();
    unsubscribe();
  }
}

/** A call's `ctx`: the executor's context, its id and signal, and its view of the state. */
function callContext(
  context: ToolExecutorOptions['context'],
  callId: string,
  signal: AbortSignal,
  own: CallState,
): ToolContext {
  return {
    ...context,
    callId,
    signal,
    get state() {
      return own.state;
    },
    updateState: (recipe) => own.updateState(recipe),
  };
}

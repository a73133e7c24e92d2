import type { AgentEvent } from '../messages/message.js';
import type { ChatClient, ModelRequest, ModelResult } from '../models/chat-client.js';
import { traceChat } from '../observability/gen-ai-spans.js';
import type { ModelCallPlan, ModelCallRefusal } from '../termination/model-call.js';
import type { AgentContext } from './chat-agent.js';
import { requestModel } from './model-turn.js';

/**
 * One model call of `agent`'s turn, traced. With a gate in the context (a budget in money) the
 * call is admitted first and settled after; a refused call is not made and ends the turn with
 * `ModelCallRefused`, carrying the turn's events so far (`inner`).
 */
export function callModel(
  client: ChatClient,
  agent: string,
  stream: boolean,
  request: ModelRequest,
  ctx: AgentContext,
  inner: readonly AgentEvent[],
): Promise<ModelResult> {
  const call = () =>
    traceChat(client, request.messages, () =>
      requestModel(client, agent, stream, request, ctx.emit),
    );
  // Without a gate (no budget in the session) nothing more is awaited per call.
  if (ctx.admitModelCall === undefined) return call();
  return gatedCall(client, agent, request, ctx, inner, call);
}

async function gatedCall(
  client: ChatClient,
  agent: string,
  request: ModelRequest,
  ctx: AgentContext,
  inner: readonly AgentEvent[],
  call: () => Promise<ModelResult>,
): Promise<ModelResult> {
  const last = inner.findLast((m) => m.type === 'ToolCallRequestEvent')?.usage?.promptTokens;
  const plan = modelCallPlan(agent, client, request, last ?? 0);
  const refusal = await ctx.admitModelCall?.(plan);
  if (refusal !== null && refusal !== undefined) {
    throw new ModelCallRefused(agent, refusal, [...inner]);
  }
  let result: ModelResult;
  try {
    result = await call();
  } catch (error) {
    await ctx.settleModelCall?.(plan, null);
    throw error;
  }
  await ctx.settleModelCall?.(plan, result.usage);
  return result;
}

/**
 * Thrown by a turn whose next model call was refused (`AgentContext.admitModelCall`): the call
 * was not made. `innerMessages` are the turn's events so far (tool calls that ran before), which
 * the session records with the stop or the pause the refusal causes.
 */
export class ModelCallRefused extends Error {
  override readonly name = 'ModelCallRefused';
  readonly refusal: ModelCallRefusal;
  readonly innerMessages: readonly AgentEvent[];

  constructor(agent: string, refusal: ModelCallRefusal, innerMessages: readonly AgentEvent[]) {
    super(`The model call of agent "${agent}" was refused: ${refusal.stop.content}`);
    this.refusal = refusal;
    this.innerMessages = innerMessages;
  }
}

/** Characters per token of the estimate (English text and JSON average about four). */
const CHARS_PER_TOKEN = 4;

/**
 * The call `request` of `agent` would be, for `admitModelCall`: its prompt's tokens estimated
 * from the request's text (messages and tool schemas), or `lastPromptTokens` (the turn's previous
 * call's prompt, which this one repeats and extends) when that is larger.
 */
export function modelCallPlan(
  agent: string,
  client: ChatClient,
  request: ModelRequest,
  lastPromptTokens: number,
): ModelCallPlan {
  let chars = 0;
  for (const m of request.messages) chars += JSON.stringify(m).length;
  if (request.tools !== undefined) chars += JSON.stringify(request.tools).length;
  if (request.outputSchema !== undefined) chars += JSON.stringify(request.outputSchema).length;
  const estimate = Math.ceil(chars / CHARS_PER_TOKEN);
  const max = client.maxCompletionTokens;
  return {
    agent,
    model: client.model,
    promptTokens: Math.max(estimate, lastPromptTokens),
    maxCompletionTokens: typeof max === 'number' && max >= 0 ? max : undefined,
  };
}

import { agentOptions } from '../../agents/agent-rewire.js';
import type { Usage } from '../../messages/message.js';
import type { Orchestration } from '../orchestration.js';

/**
 * What a model call of `agent` that used `usage` cost at the prices of the workflow's conditions
 * (a `CostTermination`), in US dollars; undefined when they price no calls or not this agent's
 * model. The model is the one the agent's client names.
 */
export function callCost(
  orchestration: Orchestration,
  agent: string,
  usage: Usage,
): number | undefined {
  const rule = orchestration.stopRule;
  if (rule === undefined) return undefined;
  const participant = orchestration.participants.get(agent);
  const model = participant === undefined ? undefined : agentOptions.get(participant)?.client.model;
  const call = { agent, model, promptTokens: usage.promptTokens, maxCompletionTokens: undefined };
  try {
    return rule.price(call, usage);
  } catch {
    // A model without a price: the cost is not known.
    return undefined;
  }
}

/**
 * The cost of model answers (`agent` and `usage` each) at the workflow's prices, in US dollars;
 * undefined unless every answer's model has a price.
 */
export function answersCost(
  orchestration: Orchestration,
  answers: Iterable<{ readonly agent: string; readonly usage: Usage }>,
): number | undefined {
  let total = 0;
  for (const { agent, usage } of answers) {
    const cost = callCost(orchestration, agent, usage);
    if (cost === undefined) return undefined;
    total += cost;
  }
  return total;
}

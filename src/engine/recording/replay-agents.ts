import { createHash } from 'node:crypto';

import { Agent } from '../../agents/agent.js';
import { rewiredOptions } from '../../agents/agent-rewire.js';
import type {
  AgentContext,
  AgentPause,
  AgentResponse,
  ChatAgent,
} from '../../agents/chat-agent.js';
import type { Instructions } from '../../agents/agent-instructions.js';
import type { ReplayController } from './replay-controller.js';
import { replayedTools, type ReplayTools } from './replay-tools.js';

/** SHA-256 of an agent's instructions (what a recording keeps to compare them). */
export function instructionsDigest(instructions: string | undefined): string | undefined {
  return instructions === undefined
    ? undefined
    : createHash('sha256').update(instructions).digest('hex');
}

/** The instructions of an `Agent`, or undefined for any other participant. */
export function instructionsOf(agent: ChatAgent): string | undefined {
  return agent instanceof Agent ? instructionsText(agent.instructions) : undefined;
}

/**
 * Instructions as a recording compares them: the text, or for instructions computed from the
 * state (a function), the function's source, so an edit of it is a divergence.
 */
function instructionsText(instructions: string | Instructions | undefined): string | undefined {
  return typeof instructions === 'function' ? String(instructions) : instructions;
}

/**
 * The participants of a replay: each `Agent` copied with its model replaced by the controller's
 * recorded answers and its tool calls answered from the recording (or run and checked, see
 * `replayedTools`), each wrapped so the controller sees its turns begin and end. Other
 * `ChatAgent`s answer as they are.
 */
export function replayParticipants(
  participants: ReadonlyMap<string, ChatAgent>,
  controller: ReplayController,
  tools: ReplayTools,
): Map<string, ChatAgent> {
  const out = new Map<string, ChatAgent>();
  for (const [name, agent] of participants) {
    const options = rewiredOptions(agent, {
      // The recorded client keeps the original's model and answer limit: a budget prices by them.
      client: (original) => ({
        model: original.model,
        maxCompletionTokens: original.maxCompletionTokens,
        create: async (request) => controller.answer(name, request),
      }),
      ...replayedTools(name, controller, tools),
    });
    const inner = options === undefined ? agent : new Agent(options);
    if (options !== undefined)
      controller.setInstructions(name, instructionsText(options.instructions));
    out.set(name, turnWatcher(inner, controller));
  }
  return out;
}

/** `agent` with its turns reported to the controller. */
function turnWatcher(agent: ChatAgent, controller: ReplayController): ChatAgent {
  const take = async (ctx: AgentContext): Promise<AgentResponse | AgentPause> => {
    const admit = ctx.admitModelCall;
    if (admit === undefined) {
      controller.begin(agent.name);
    } else {
      // With a budget, a turn begins at its first call admitted: a turn whose first call was
      // refused was never a turn of the recording (it left a budget request, not an answer).
      let begun = false;
      ctx.admitModelCall = async (call) => {
        const refusal = await admit(call);
        if (refusal === null && !begun) {
          begun = true;
          controller.begin(agent.name);
        }
        return refusal;
      };
    }
    const response = await (agent.takeTurn === undefined
      ? agent.respond(ctx)
      : agent.takeTurn(ctx));
    controller.end(agent.name, response);
    return response;
  };
  return {
    name: agent.name,
    description: agent.description,
    takeTurn: take,
    respond: async (ctx) => {
      const response = await take(ctx);
      if ('approvalRequest' in response)
        throw new Error('a replayed turn paused outside a session');
      return response;
    },
  };
}

// The relay scenario's LangGraph.js swarm (as bench/peers/langgraph-relay.ts builds it: four
// `createReactAgent`s chained by `createHandoffTool`, an instant model that records nothing), for
// LangGraph's own server: `graph` is compiled without a checkpointer (the server gives its own);
// `relaySwarm()` is the same graph to compile in-process.
import { BaseChatModel } from '@langchain/core/language_models/chat_models';
import { AIMessage, type BaseMessage } from '@langchain/core/messages';
import type { ChatResult } from '@langchain/core/outputs';
import { createReactAgent } from '@langchain/langgraph/prebuilt';
import { createHandoffTool, createSwarm } from '@langchain/langgraph-swarm';

import { NEXT, RELAY } from '../../relay.js';

let callId = 0;

/** An instant chat model for one agent of the relay; it records nothing. */
class RelayChatModel extends BaseChatModel {
  readonly #agent: string;

  constructor(agent: string) {
    super({});
    this.#agent = agent;
  }

  _llmType() {
    return 'relay';
  }

  async _generate(_messages: BaseMessage[]): Promise<ChatResult> {
    const next = NEXT[this.#agent];
    const id = `c${++callId}`;
    const message =
      next === undefined
        ? new AIMessage({ id, content: `Your account request number ${callId} is done.` })
        : new AIMessage({
            id,
            content: '',
            tool_calls: [{ id, name: `transfer_to_${next}`, args: {}, type: 'tool_call' }],
          });
    return { generations: [{ text: '', message }] };
  }

  override bindTools(): this {
    return this;
  }
}

export function relaySwarm() {
  const agents = RELAY.map((name) => {
    const next = NEXT[name];
    return createReactAgent({
      llm: new RelayChatModel(name),
      tools: next === undefined ? [] : [createHandoffTool({ agentName: next })],
      name,
      prompt: 'Pass the request along the relay.',
    });
  });
  return createSwarm({ agents, defaultActiveAgent: 'triage' });
}

export const graph = relaySwarm().compile();

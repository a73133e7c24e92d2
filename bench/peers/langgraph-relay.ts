// The relay scenario on LangGraph.js swarm: four `createReactAgent`s chained by `createHandoffTool`,
// compiled with a MemorySaver or a SqliteSaver so that one thread carries its history forward.
// Each turn starts at triage (`activeAgent: 'triage'` in the input), as Baton routes the user's
// reply to its coordinator.
//
// The model is a minimal BaseChatModel that answers instantly with the handoff tool call. We do
// not use `fakeModel()` from `langchain`: it keeps a copy of every request's messages in `calls`
// (O(thread) work per call and memory that grows with every call) and, for `respondWithTools`,
// sets the answer's content to all earlier messages joined — which would make the thread itself
// grow quadratically. Like Baton's RelayModel, this one records nothing.
import { mkdtemp, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { BaseChatModel } from '@langchain/core/language_models/chat_models';
import { AIMessage, type BaseMessage, HumanMessage } from '@langchain/core/messages';
import type { ChatResult } from '@langchain/core/outputs';
import { type BaseCheckpointSaver, MemorySaver } from '@langchain/langgraph';
import { createReactAgent } from '@langchain/langgraph/prebuilt';
import { createHandoffTool, createSwarm } from '@langchain/langgraph-swarm';

import {
  modelCalls,
  NEXT,
  RELAY,
  type RelayFramework,
  type RelayOptions,
  type RelaySession,
} from '../relay.js';

let callId = 0;

/** An instant chat model for one agent of the relay; it records nothing. */
class RelayChatModel extends BaseChatModel {
  readonly #agent: string;
  readonly #latencyMs: number;

  constructor(agent: string, latencyMs: number) {
    super({});
    this.#agent = agent;
    this.#latencyMs = latencyMs;
  }

  _llmType() {
    return 'relay';
  }

  async _generate(_messages: BaseMessage[]): Promise<ChatResult> {
    modelCalls.count++;
    if (this.#latencyMs > 0) await new Promise((resolve) => setTimeout(resolve, this.#latencyMs));
    const next = NEXT[this.#agent];
    const id = `c${++callId}`;
    const message =
      next === undefined
        ? new AIMessage({
            id,
            content: `Your account request number ${callId} is done. Anything else?`,
          })
        : new AIMessage({
            id,
            content: '',
            tool_calls: [{ id, name: `transfer_to_${next}`, args: {}, type: 'tool_call' }],
          });
    return { generations: [{ text: '', message }] };
  }

  // The tools are fixed by the relay; binding them changes nothing.
  override bindTools(): this {
    return this;
  }
}

/** Builds the relay desk on LangGraph.js swarm. */
export async function langgraphRelay(
  options: RelayOptions & { saver?: 'memory' | 'sqlite' } = {},
): Promise<RelayFramework> {
  const latency = options.latencyMs ?? 0;
  const directory =
    options.saver === 'sqlite' ? await mkdtemp(join(tmpdir(), 'langgraph-bench-')) : undefined;
  const file = directory === undefined ? undefined : join(directory, 'checkpoints.db');
  // Imported only when used, so that the MemorySaver runs even where better-sqlite3 did not build.
  const sqlite =
    file === undefined
      ? undefined
      : (await import('@langchain/langgraph-checkpoint-sqlite')).SqliteSaver.fromConnString(file);
  const checkpointer: BaseCheckpointSaver = sqlite ?? new MemorySaver();
  const agents = RELAY.map((name) => {
    const next = NEXT[name];
    return createReactAgent({
      llm: new RelayChatModel(name, latency),
      tools: next === undefined ? [] : [createHandoffTool({ agentName: next })],
      name,
      prompt: 'Pass the request along the relay.',
    });
  });
  const graph = createSwarm({ agents, defaultActiveAgent: 'triage' }).compile({ checkpointer });

  const fileBytes = async (path: string) => (await stat(path).catch(() => undefined))?.size ?? 0;

  return {
    name: file === undefined ? 'LangGraph swarm + MemorySaver' : 'LangGraph swarm + SqliteSaver',
    session(id): RelaySession {
      const config = { configurable: { thread_id: id }, recursionLimit: 50 };
      return {
        async run(text) {
          await graph.invoke({ messages: [new HumanMessage(text)], activeAgent: 'triage' }, config);
        },
        async threadJSON() {
          const state = await graph.getState(config);
          return JSON.stringify(state.values.messages);
        },
        async persistedBytes() {
          if (file === undefined) return undefined;
          return (
            (await fileBytes(file)) +
            (await fileBytes(`${file}-wal`)) +
            (await fileBytes(`${file}-shm`))
          );
        },
        // The thread lives in the checkpointer; the caller keeps only its id.
        held: () => config,
      };
    },
    async close() {
      sqlite?.db.close();
      if (directory !== undefined) await rm(directory, { recursive: true, force: true });
    },
  };
}

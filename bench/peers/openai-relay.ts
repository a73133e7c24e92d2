// The relay scenario on @openai/agents: four agents chained by handoffs, an instant model that
// calls `transfer_to_<next>` and answers at the end of the relay, tracing disabled. The caller
// carries the history forward (`result.history` plus the next user message), as the SDK's
// "manage the conversation yourself" pattern does; the persisted form is `result.state.toString()`.
import {
  Agent,
  type AgentInputItem,
  type Model,
  type ModelRequest,
  type ModelResponse,
  Runner,
  setTracingDisabled,
  Usage,
  user,
} from '@openai/agents';

import {
  modelCalls,
  NEXT,
  RELAY,
  type RelayFramework,
  type RelayOptions,
  type RelaySession,
} from '../relay.js';

let callId = 0;

/** An instant model for one agent of the relay; it records nothing. */
class RelayModel implements Model {
  readonly #agent: string;
  readonly #latencyMs: number;

  constructor(agent: string, latencyMs: number) {
    this.#agent = agent;
    this.#latencyMs = latencyMs;
  }

  async getResponse(_request: ModelRequest): Promise<ModelResponse> {
    modelCalls.count++;
    if (this.#latencyMs > 0) await new Promise((resolve) => setTimeout(resolve, this.#latencyMs));
    const next = NEXT[this.#agent];
    const id = `c${++callId}`;
    if (next !== undefined) {
      return {
        usage: new Usage(),
        output: [
          {
            type: 'function_call',
            callId: id,
            name: `transfer_to_${next}`,
            arguments: '{}',
            status: 'completed',
          },
        ],
      };
    }
    return {
      usage: new Usage(),
      output: [
        {
          type: 'message',
          role: 'assistant',
          status: 'completed',
          content: [
            {
              type: 'output_text',
              text: `Your account request number ${callId} is done. Anything else?`,
            },
          ],
        },
      ],
    };
  }

  getStreamedResponse(): AsyncIterable<never> {
    throw new Error('The relay model does not stream; the benchmark runs without streaming.');
  }
}

/** Builds the relay desk on @openai/agents. */
export function openaiRelay(options: RelayOptions = {}): RelayFramework {
  setTracingDisabled(true);
  const latency = options.latencyMs ?? 0;
  const agents = new Map<string, Agent>();
  for (const name of [...RELAY].reverse()) {
    const next = NEXT[name];
    agents.set(
      name,
      new Agent({
        name,
        handoffDescription: 'A relay agent.',
        instructions: 'Pass the request along the relay.',
        model: new RelayModel(name, latency),
        handoffs: next === undefined ? [] : [agents.get(next) as Agent],
      }),
    );
  }
  const triage = agents.get('triage') as Agent;
  const runner = new Runner({ tracingDisabled: true });

  return {
    name: 'OpenAI Agents',
    session(): RelaySession {
      let history: AgentInputItem[] = [];
      let state: { toString(): string } | undefined;
      return {
        async run(text) {
          const result = await runner.run(triage, [...history, user(text)], { maxTurns: 10 });
          history = result.history;
          state = result.state;
        },
        async threadJSON() {
          return JSON.stringify(history);
        },
        async persistedBytes() {
          return state === undefined ? 0 : Buffer.byteLength(state.toString());
        },
        // What a caller keeps between turns: the history. The last RunState is only kept here to
        // measure its serialised form.
        held: () => history,
      };
    },
    async close() {},
  };
}

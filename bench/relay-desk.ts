// The "relay" scenario of the benchmarks: four agents (triage → billing → technical → account);
// each user turn is 4 model calls and 3 handoffs, and the session carries its history forward.
// The model answers instantly, so only the framework's own work is measured.
import {
  Agent,
  type ChatClient,
  type CheckpointStore,
  HandoffBuilder,
  type HandoffWorkflow,
  type ModelRequest,
  type ModelResult,
} from '../src/index.js';

const NEXT: Record<string, string | undefined> = {
  triage: 'billing',
  billing: 'technical',
  technical: 'account',
};
const usage = { promptTokens: 0, completionTokens: 0 };
let callId = 0;

/** An instant model that hands off along the relay and answers at its end; it records nothing. */
class RelayModel implements ChatClient {
  readonly #agent: string;
  calls = 0;

  constructor(agent: string) {
    this.#agent = agent;
  }

  async create(_request: ModelRequest): Promise<ModelResult> {
    this.calls++;
    const next = NEXT[this.#agent];
    if (next !== undefined) {
      return {
        content: null,
        toolCalls: [{ id: `c${++callId}`, name: `handoff_to_${next}`, arguments: '{}' }],
        usage,
      };
    }
    return {
      content: `Your account request number ${callId} is done. Anything else?`,
      toolCalls: [],
      usage,
    };
  }
}

/** Builds the relay desk; `models` exposes the call counters. */
export function relayDesk(store?: CheckpointStore): {
  workflow: HandoffWorkflow;
  models: RelayModel[];
} {
  const models = ['triage', 'billing', 'technical', 'account'].map((name) => new RelayModel(name));
  const [triage, billing, technical, account] = models.map(
    (client, i) =>
      new Agent({
        name: ['triage', 'billing', 'technical', 'account'][i] as string,
        description: 'A relay agent.',
        instructions: 'Pass the request along the relay.',
        client,
      }),
  ) as [Agent, Agent, Agent, Agent];
  let builder = new HandoffBuilder({
    name: 'relay',
    participants: [triage, billing, technical, account],
  })
    .coordinator(triage)
    .addHandoff(billing, [technical])
    .addHandoff(technical, [account])
    .withMaxTurns(10);
  if (store !== undefined) builder = builder.withCheckpointing(store);
  return { workflow: builder.build(), models };
}

/** The user's message of turn `n`. */
export const userTurn = (n: number) =>
  `Turn ${n}: please check my account, invoice and connection.`;

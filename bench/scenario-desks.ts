// The relay's four agents (triage, billing, technical, account) in the other orchestrations that
// take a checkpoint store (issue 19): a graph workflow that runs them as a fixed chain, and teams
// that let each answer once per run. Every model answers with text at once (or after
// `latencyMs`), so only the framework's own work is measured; each user turn is 4 model calls.
import {
  Agent,
  type ChatClient,
  type CheckpointStore,
  GraphBuilder,
  MaxMessageTermination,
  type ModelRequest,
  type ModelResult,
  RoundRobinGroupChat,
  type Runnable,
  SelectorGroupChat,
} from '../src/index.js';
import { modelCalls, RELAY, type Scenario } from './relay.js';

/** The orchestrations measured beside the relay's HandoffBuilder desk. */
export type DeskScenario = Exclude<Scenario, 'relay'>;

const usage = { promptTokens: 0, completionTokens: 0 };
let answers = 0;

/** An instant model that answers with text; it records nothing but the call count. */
class TextModel implements ChatClient {
  readonly #agent: string;
  readonly #latencyMs: number;

  constructor(agent: string, latencyMs: number) {
    this.#agent = agent;
    this.#latencyMs = latencyMs;
  }

  async create(_request: ModelRequest): Promise<ModelResult> {
    modelCalls.count++;
    if (this.#latencyMs > 0) await new Promise((resolve) => setTimeout(resolve, this.#latencyMs));
    return {
      content: `${this.#agent} checked request number ${++answers}. Anything else?`,
      toolCalls: [],
      usage,
    };
  }
}

const agents = (latencyMs: number) =>
  RELAY.map(
    (name) =>
      new Agent({
        name,
        description: 'A relay agent.',
        instructions: 'Pass the request along the relay.',
        client: new TextModel(name, latencyMs),
      }),
  );

// The task and the four answers: the condition fires after the last agent, and the next run's task
// goes to the next speaker, which round robin makes the first agent again.
const afterFourAnswers = () => new MaxMessageTermination(1 + RELAY.length);

/** Who speaks after `source` in the selector team: the relay order, starting over after the user. */
const NEXT_SPEAKER = new Map<string, string>(
  RELAY.map((name, i) => [name, RELAY[(i + 1) % RELAY.length] as string]),
);

/** Builds the scenario's runnable on the relay's four agents, checkpointed when given a store. */
export function scenarioDesk(
  scenario: DeskScenario,
  store?: CheckpointStore,
  latencyMs = 0,
): Runnable {
  const [triage, billing, technical, account] = agents(latencyMs) as [Agent, Agent, Agent, Agent];
  const participants = [triage, billing, technical, account];
  const checkpointStore = store === undefined ? {} : { checkpointStore: store };
  switch (scenario) {
    case 'graph': {
      const builder = new GraphBuilder({ name: 'relay_graph' })
        .addNode(triage)
        .addNode(billing)
        .addNode(technical)
        .addNode(account)
        .addEdge(triage, billing)
        .addEdge(billing, technical)
        .addEdge(technical, account)
        .withMaxTurns(10);
      return (store === undefined ? builder : builder.withCheckpointing(store)).build();
    }
    case 'team':
      return new RoundRobinGroupChat(participants, {
        name: 'relay_team',
        terminationCondition: afterFourAnswers(),
        ...checkpointStore,
      });
    case 'selector':
      return new SelectorGroupChat(participants, {
        name: 'relay_selector',
        // Chosen in code from the last message, so the selector makes no model call.
        selectorFunc: (messages) => NEXT_SPEAKER.get(messages.at(-1)?.source ?? '') ?? 'triage',
        terminationCondition: afterFourAnswers(),
        ...checkpointStore,
      });
  }
}

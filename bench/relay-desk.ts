// The relay desk on Baton: a HandoffBuilder with an `addHandoff` chain and instant models. The
// model answers instantly (or after `latencyMs`), so only the framework's own work is measured.
import { mkdtemp, readdir, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import {
  Agent,
  type ChatClient,
  type CheckpointStore,
  FileCheckpointStore,
  HandoffBuilder,
  type HandoffWorkflow,
  type ModelRequest,
  type ModelResult,
  type Runnable,
} from '../src/index.js';
import type { DeskScenario } from './scenario-desks.js';
import {
  countTurn,
  modelCalls,
  NEXT,
  RELAY,
  type RelayFramework,
  type RelayOptions,
  type RelaySession,
} from './relay.js';

export { userTurn } from './relay.js';

const usage = { promptTokens: 0, completionTokens: 0 };
let callId = 0;

/** An instant model that hands off along the relay and answers at its end; it records nothing. */
export class RelayModel implements ChatClient {
  readonly #agent: string;
  readonly #latencyMs: number;
  calls = 0;

  constructor(agent: string, latencyMs = 0) {
    this.#agent = agent;
    this.#latencyMs = latencyMs;
  }

  async create(_request: ModelRequest): Promise<ModelResult> {
    this.calls++;
    modelCalls.count++;
    if (this.#latencyMs > 0) await new Promise((resolve) => setTimeout(resolve, this.#latencyMs));
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

/**
 * Builds the relay desk; `models` exposes the call counters. `clientFor` puts another client in
 * front of each agent's model (bench/ai-sdk-relay.ts: ScriptedChatClient, AiSdkChatClient).
 */
export function relayDesk(
  store?: CheckpointStore,
  latencyMs = 0,
  clientFor: (model: RelayModel) => ChatClient = (model) => model,
): {
  workflow: HandoffWorkflow;
  models: RelayModel[];
} {
  const models = RELAY.map((name) => new RelayModel(name, latencyMs));
  const [triage, billing, technical, account] = models.map(clientFor).map(
    (client, i) =>
      new Agent({
        name: RELAY[i] as string,
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

/** The relay desk behind the interface every framework shares. */
export async function batonRelay(
  options: RelayOptions & { store?: 'file'; clientFor?: (model: RelayModel) => ChatClient } = {},
): Promise<RelayFramework> {
  return batonFramework(
    (store) => relayDesk(store, options.latencyMs, options.clientFor).workflow,
    options.store,
  );
}

/** One of the other orchestrations of the four agents (bench/scenario-desks.ts), on Baton. */
export async function batonScenario(
  scenario: DeskScenario,
  options: RelayOptions & { store?: 'file' } = {},
): Promise<RelayFramework> {
  const { scenarioDesk } = await import('./scenario-desks.js');
  return batonFramework((store) => scenarioDesk(scenario, store, options.latencyMs), options.store);
}

/**
 * A Baton runnable behind the interface every framework shares, with a FileCheckpointStore in a
 * temporary directory when `storeKind` is "file". Each turn's result is counted (`countTurn`), so
 * that the benchmarks can check the scenario.
 */
async function batonFramework(
  build: (store: CheckpointStore | undefined) => Runnable,
  storeKind: 'file' | undefined,
): Promise<RelayFramework> {
  const directory =
    storeKind === 'file' ? await mkdtemp(join(tmpdir(), 'baton-bench-')) : undefined;
  const store = directory === undefined ? undefined : new FileCheckpointStore(directory);
  const workflow = build(store);
  return {
    name: directory === undefined ? 'Baton' : 'Baton + FileCheckpointStore',
    session(id): RelaySession {
      const session = workflow.session(id);
      return {
        async run(text) {
          countTurn((await session.run(text)).messages.length);
        },
        async threadJSON() {
          return JSON.stringify(await session.messages());
        },
        async persistedBytes() {
          if (directory === undefined) return undefined;
          let total = 0;
          for (const name of await readdir(directory))
            total += (await stat(join(directory, name))).size;
          return total;
        },
        held: () => session,
      };
    },
    async close() {
      await store?.close();
      if (directory !== undefined) await rm(directory, { recursive: true, force: true });
    },
  };
}

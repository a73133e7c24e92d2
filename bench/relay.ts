// The "relay" scenario every framework runs: four agents (triage → billing → technical → account);
// each user turn is 4 model calls and 3 handoffs, and one session carries its history forward.
// Each framework is wrapped in the same small interface so that every measurement script runs
// unchanged against Baton and the peers. Frameworks load lazily: a child process imports only the
// one it measures.

export const RELAY = ['triage', 'billing', 'technical', 'account'] as const;

/** Who each agent of the relay hands off to; the last one answers the user. */
export const NEXT: Readonly<Record<string, string | undefined>> = {
  triage: 'billing',
  billing: 'technical',
  technical: 'account',
};

/** The user's message of turn `n`. */
export const userTurn = (n: number) =>
  `Turn ${n}: please check my account, invoice and connection.`;

/** Model calls made by every relay model in this process; lets each benchmark check the scenario. */
export const modelCalls = { count: 0 };

/**
 * The orchestrations that run the relay's four agents, 4 model calls a user turn (issue 19): the
 * HandoffBuilder desk every framework runs, and, on Baton only, a graph workflow running them as a
 * fixed chain and two teams whose termination condition ends each run after the four answers.
 * `messagesPerTurn`: the messages of each turn's result (the user's message first).
 */
export const SCENARIOS = {
  relay: { label: 'relay (HandoffBuilder)', messagesPerTurn: 12 },
  graph: { label: 'graph (GraphBuilder chain)', messagesPerTurn: 5 },
  team: { label: 'team (RoundRobinGroupChat)', messagesPerTurn: 5 },
  selector: { label: 'team (SelectorGroupChat, selectorFunc)', messagesPerTurn: 5 },
} as const;

export type Scenario = keyof typeof SCENARIOS;

/** Turns run by Baton's desks in this process and the messages of their results. */
export const turnMessages = { turns: 0, messages: 0 };

/** Counts one turn's result; Baton's desks call it after every run. */
export const countTurn = (messages: number) => {
  turnMessages.turns++;
  turnMessages.messages += messages;
};

/**
 * Checks that the process ran the scenario it claims: 4 model calls for each of `turns` user turns
 * and, on Baton, each turn's result holding the scenario's messages. The peers count model calls
 * only, so for them the count has to be a multiple of 4.
 */
export function checkScenario(scenario: Scenario, turns: number, callsBefore = 0): void {
  const calls = modelCalls.count - callsBefore;
  if (turnMessages.turns === 0) {
    if (calls % 4 !== 0) {
      throw new Error(
        `The ${scenario} scenario made ${calls} model calls; it should make 4 a turn.`,
      );
    }
    return;
  }
  if (calls !== turns * 4) {
    throw new Error(
      `The ${scenario} scenario made ${calls} model calls in ${turns} turns; it should make 4 a turn.`,
    );
  }
  const expected = SCENARIOS[scenario].messagesPerTurn;
  if (turnMessages.turns !== turns || turnMessages.messages !== turns * expected) {
    throw new Error(
      `The ${scenario} scenario's ${turnMessages.turns} turns (${turns} run) returned ` +
        `${turnMessages.messages} messages; each should return ${expected}.`,
    );
  }
}

export interface RelayOptions {
  /** Simulated model latency per call, in milliseconds. @default 0 (an instant model) */
  latencyMs?: number;
  /** The orchestration of the four agents; only Baton runs the others. @default "relay" */
  scenario?: Scenario;
}

/** One conversation with the relay desk. */
export interface RelaySession {
  /** Runs one user turn: 4 model calls and 3 handoffs. */
  run(text: string): Promise<void>;
  /** The session's thread as the framework's own JSON. */
  threadJSON(): Promise<string>;
  /** Bytes the framework persisted for this session; `undefined` when it persists nothing. */
  persistedBytes(): Promise<number | undefined>;
  /** What stays in memory while the session waits for the user (kept by the heap benchmark). */
  held(): unknown;
}

export interface RelayFramework {
  readonly name: string;
  session(id: string): RelaySession;
  close(): Promise<void>;
}

export const FRAMEWORKS = {
  baton: 'Baton',
  'baton-file': 'Baton + FileCheckpointStore',
  openai: 'OpenAI Agents',
  'langgraph-memory': 'LangGraph swarm + MemorySaver',
  'langgraph-sqlite': 'LangGraph swarm + SqliteSaver',
} as const;

export type FrameworkKind = keyof typeof FRAMEWORKS;

export const isFrameworkKind = (kind: string | undefined): kind is FrameworkKind =>
  kind !== undefined && Object.hasOwn(FRAMEWORKS, kind);

/** The peer frameworks, which `npm run bench:peers` installs into bench/peers/ on first use. */
export const PEER_KINDS: readonly FrameworkKind[] = [
  'openai',
  'langgraph-memory',
  'langgraph-sqlite',
];

type PeerModules = {
  'openai-relay.ts': {
    openaiRelay(options: RelayOptions): RelayFramework | Promise<RelayFramework>;
  };
  'langgraph-relay.ts': {
    langgraphRelay(
      options: RelayOptions & { saver?: 'memory' | 'sqlite' },
    ): Promise<RelayFramework>;
  };
};

/**
 * Imports a peer's relay by URL rather than by a literal path, so that the project's typecheck
 * does not follow it into packages that only bench/peers/ installs (bench/peers/tsconfig.json
 * checks those files).
 */
async function peer<F extends keyof PeerModules>(file: F): Promise<PeerModules[F]> {
  return (await import(new URL(`./peers/${file}`, import.meta.url).href)) as PeerModules[F];
}

/** Opens the relay desk on one framework. */
export async function openRelay(
  kind: FrameworkKind,
  options: RelayOptions = {},
): Promise<RelayFramework> {
  const scenario = options.scenario ?? 'relay';
  if (scenario !== 'relay') {
    if (kind !== 'baton' && kind !== 'baton-file') {
      throw new Error(
        `Only Baton runs the ${scenario} scenario; ${FRAMEWORKS[kind]} runs "relay".`,
      );
    }
    const { batonScenario } = await import('./relay-desk.js');
    return batonScenario(scenario, {
      ...options,
      ...(kind === 'baton-file' ? { store: 'file' } : {}),
    });
  }
  switch (kind) {
    case 'baton':
      return (await import('./relay-desk.js')).batonRelay(options);
    case 'baton-file':
      return (await import('./relay-desk.js')).batonRelay({ ...options, store: 'file' });
    case 'openai':
      return (await peer('openai-relay.ts')).openaiRelay(options);
    case 'langgraph-memory':
      return (await peer('langgraph-relay.ts')).langgraphRelay(options);
    case 'langgraph-sqlite':
      return (await peer('langgraph-relay.ts')).langgraphRelay({ ...options, saver: 'sqlite' });
  }
}

/** The framework named on the command line, or a usage error. */
export function frameworkArg(arg: string | undefined): FrameworkKind {
  if (isFrameworkKind(arg)) return arg;
  throw new Error(
    `Unknown framework ${JSON.stringify(arg)}. Use one of: ${Object.keys(FRAMEWORKS).join(', ')}.`,
  );
}

/**
 * The benchmark's arguments: the positional ones, and the scenario of `--scenario <name>`
 * (default "relay").
 */
export function benchArgs(argv: readonly string[]): { positional: string[]; scenario: Scenario } {
  const positional: string[] = [];
  let scenario: Scenario = 'relay';
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] as string;
    if (arg === '--scenario' || arg.startsWith('--scenario=')) {
      const value = arg === '--scenario' ? argv[++i] : arg.slice('--scenario='.length);
      if (value === undefined || !Object.hasOwn(SCENARIOS, value)) {
        throw new Error(
          `Unknown scenario ${JSON.stringify(value)}. Use one of: ${Object.keys(SCENARIOS).join(', ')}.`,
        );
      }
      scenario = value as Scenario;
    } else positional.push(arg);
  }
  return { positional, scenario };
}

/** The `scenario` field of a benchmark's JSON: left out for the relay, whose output predates it. */
export const scenarioField = (scenario: Scenario) => (scenario === 'relay' ? {} : { scenario });

export const percentile = (sorted: readonly number[], p: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))] ?? 0;

export const median = (xs: readonly number[]) =>
  percentile(
    [...xs].sort((a, b) => a - b),
    0.5,
  );

/** The size of a session's thread as the framework's own JSON, in bytes. */
export async function threadBytes(session: RelaySession): Promise<number> {
  return Buffer.byteLength(await session.threadJSON());
}

// Routing modes measured on a scripted support desk: model calls, estimated prompt tokens and the
// routing outcome of every user turn, for `coordinator`, `last_agent` and `lazy` routing (with the
// coordinator as classifier, and with a function classifier). Prints one JSON line.
import {
  Agent,
  type ChatClient,
  HandoffBuilder,
  type ModelRequest,
  type ModelResult,
} from '../src/index.js';

const TOPICS = ['billing', 'tech', 'account'] as const;
type Topic = (typeof TOPICS)[number];
const KEYWORDS: Record<Topic, string> = { billing: 'invoice', tech: 'router', account: 'password' };
const PHRASE = 'This is outside my area';

/** A deterministic pseudo-random sequence (mulberry32), so every run measures the same set. */
function random(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** 24 conversations of 4–8 user turns; about one turn in seven switches topic. */
function conversations(): Topic[][] {
  const next = random(7);
  return Array.from({ length: 24 }, () => {
    const turns = 4 + Math.floor(next() * 5);
    let topic = TOPICS[Math.floor(next() * 3)] as Topic;
    return Array.from({ length: turns }, (_, i) => {
      if (i > 0 && next() < 1 / 7)
        topic = TOPICS[(TOPICS.indexOf(topic) + 1 + Math.floor(next() * 2)) % 3] as Topic;
      return topic;
    });
  });
}

const topicOf = (text: string): Topic | undefined => TOPICS.find((t) => text.includes(KEYWORDS[t]));

function lastUserText(request: ModelRequest): string {
  for (let i = request.messages.length - 1; i >= 0; i--) {
    const m = request.messages[i];
    if (m?.role === 'user') return m.content;
  }
  return '';
}

/** Counts every call and estimates prompt tokens from characters (4 per token). */
class Meter {
  calls = 0;
  promptTokens = 0;
  record(request: ModelRequest): void {
    this.calls++;
    this.promptTokens += Math.ceil(JSON.stringify(request.messages).length / 4);
  }
}

const handoff = (target: string): ModelResult => ({
  content: null,
  toolCalls: [
    {
      id: `c${Math.random().toString(36).slice(2)}`,
      name: `handoff_to_${target}`,
      arguments: '{}',
    },
  ],
  usage: { promptTokens: 0, completionTokens: 0 },
});
const say = (content: string): ModelResult => ({
  content,
  toolCalls: [],
  usage: { promptTokens: 0, completionTokens: 0 },
});

/** The triage model: hands the latest request to the specialist its keyword names. */
const triageModel = (meter: Meter): ChatClient => ({
  async create(request) {
    meter.record(request);
    return handoff(topicOf(lastUserText(request)) ?? 'billing');
  },
});

/** A specialist: answers its own topic; otherwise hands off if it can, else says the phrase. */
const specialistModel = (topic: Topic, meter: Meter): ChatClient => ({
  async create(request) {
    meter.record(request);
    const wanted = topicOf(lastUserText(request));
    if (wanted === topic || wanted === undefined) return say(`${topic} answer`);
    if (request.tools?.some((t) => t.name === `handoff_to_${wanted}`)) return handoff(wanted);
    return say(`${PHRASE}: ask ${wanted}.`);
  },
});

type Mode = 'coordinator' | 'last_agent' | 'lazy' | 'lazy_function';

async function measure(mode: Mode, set: Topic[][]) {
  const meter = new Meter();
  const outcomes: string[][] = [];
  for (const [c, topics] of set.entries()) {
    const triage = new Agent({
      name: 'triage',
      description: 'Routes requests.',
      client: triageModel(meter),
    });
    const specialists = TOPICS.map(
      (t) =>
        new Agent({ name: t, description: `${t} questions`, client: specialistModel(t, meter) }),
    );
    let builder = new HandoffBuilder({
      name: 'desk',
      participants: [triage, ...specialists],
    }).coordinator(triage);
    if (mode === 'last_agent') {
      builder = builder.withUserReplyRouting('last_agent');
      // Without the coordinator in the loop, a topic switch needs a handoff tool on every specialist.
      for (const s of specialists)
        builder = builder.addHandoff(
          s,
          specialists.filter((o) => o !== s),
        );
    }
    if (mode === 'lazy') builder = builder.withUserReplyRouting('lazy', { handoffPhrase: PHRASE });
    if (mode === 'lazy_function') {
      builder = builder.withUserReplyRouting('lazy', {
        handoffPhrase: PHRASE,
        classifier: (text) => topicOf(text) ?? 'billing',
      });
    }
    const session = builder.build().session(`c${c}`);
    const routed: string[] = [];
    for (const [turn, topic] of topics.entries()) {
      const result = await session.run(`Turn ${turn + 1}: a question about my ${KEYWORDS[topic]}.`);
      routed.push(result.pendingRequest?.agent ?? 'none');
    }
    outcomes.push(routed);
  }
  return { mode, calls: meter.calls, promptTokens: meter.promptTokens, outcomes };
}

const set = conversations();
const turns = set.reduce((n, c) => n + c.length, 0);
const switches = set.reduce((n, c) => n + c.filter((t, i) => i > 0 && t !== c[i - 1]).length, 0);
const results = [];
for (const mode of ['coordinator', 'last_agent', 'lazy', 'lazy_function'] as const)
  results.push(await measure(mode, set));
const expected = JSON.stringify(set);
const identical = results.every((r) => JSON.stringify(r.outcomes) === expected);
console.log(
  JSON.stringify({
    bench: 'routing',
    conversations: set.length,
    turns,
    switches,
    identicalOutcomes: identical,
    modes: results.map(({ mode, calls, promptTokens }) => ({ mode, calls, promptTokens })),
    outcomes: set,
  }),
);

// The cost of a client adapter per model call: the relay scenario (bench/relay.ts: 4 model calls
// and 3 handoffs a user turn) with each agent's instant model behind one of three clients:
// "plain" (the relay's own ChatClient), "scripted" (ScriptedChatClient with a step function,
// which records a deep copy of every request) and "ai-sdk" (AiSdkChatClient on the AI SDK's
// MockLanguageModelV4, whose doGenerate answers as the relay model does). µs per model call over
// a 50-turn session after warm-up sessions (p50, p90), as bench/relay-overhead.ts measures.
// Usage: ai-sdk-relay.ts plain|scripted|ai-sdk
import type { LanguageModelV4GenerateResult } from '@ai-sdk/provider';
import { MockLanguageModelV4 } from 'ai/test';

import { AiSdkChatClient, type ChatClient, ScriptedChatClient } from '../src/index.js';
import { checkScenario, percentile, userTurn } from './relay.js';
import { batonRelay, type RelayModel } from './relay-desk.js';

const kinds = ['plain', 'scripted', 'ai-sdk'] as const;
const kind = process.argv[2] as (typeof kinds)[number];
if (!kinds.includes(kind)) throw new Error(`Usage: ai-sdk-relay.ts ${kinds.join('|')}`);

const finish = { unified: 'stop', raw: 'stop' } as const;
const usage = {
  inputTokens: { total: 0, noCache: 0, cacheRead: 0, cacheWrite: 0 },
  outputTokens: { total: 0, text: 0, reasoning: 0 },
};

/** The relay model's answer as an AI SDK model's `doGenerate` result. */
async function generate(model: RelayModel): Promise<LanguageModelV4GenerateResult> {
  const answer = await model.create({ messages: [] });
  return {
    content: [
      ...(answer.content === null ? [] : [{ type: 'text' as const, text: answer.content }]),
      ...answer.toolCalls.map((c) => ({
        type: 'tool-call' as const,
        toolCallId: c.id,
        toolName: c.name,
        input: c.arguments,
      })),
    ],
    finishReason: answer.toolCalls.length > 0 ? { ...finish, unified: 'tool-calls' } : finish,
    usage,
    warnings: [],
  };
}

function clientFor(model: RelayModel): ChatClient {
  switch (kind) {
    case 'plain':
      return model;
    case 'scripted':
      return new ScriptedChatClient((request) => model.create(request));
    case 'ai-sdk': {
      const mock = new MockLanguageModelV4({ doGenerate: () => generate(model) });
      // The mock keeps every call's options; the relay runs thousands, so it keeps none here.
      const generateOnce = mock.doGenerate.bind(mock);
      mock.doGenerate = (options) => {
        const result = generateOnce(options);
        mock.doGenerateCalls.length = 0;
        return result;
      };
      return new AiSdkChatClient(mock);
    }
  }
}

const framework = await batonRelay({ clientFor });
let turns = 0;
const warmUpEnd = performance.now() + 20_000;
for (let i = 0; i < 40 && performance.now() < warmUpEnd; i++) {
  const warmUp = framework.session(`warm-up-${i}`);
  for (let t = 1; t <= 50; t++) await warmUp.run(userTurn(t));
  turns += 50;
}
const session = framework.session('overhead');
const perCall: number[] = [];
for (let t = 1; t <= 50; t++) {
  const start = process.hrtime.bigint();
  await session.run(userTurn(t));
  perCall.push(Number(process.hrtime.bigint() - start) / 1000 / 4);
}
turns += 50;
await framework.close();
checkScenario('relay', turns);
const sorted = perCall.slice(5).sort((a, b) => a - b);
console.log(
  JSON.stringify({
    bench: 'ai-sdk-relay',
    client: kind,
    perCallP50Us: percentile(sorted, 0.5),
    perCallP90Us: percentile(sorted, 0.9),
  }),
);

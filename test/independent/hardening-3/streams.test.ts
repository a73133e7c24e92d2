// Hostile stream/abort tests: leaving runStream early; an instant team stopped by a timer abort.
import { describe, expect, it } from 'vitest';

import {
  Agent,
  RoundRobinGroupChat,
  ScriptedChatClient,
  scriptedText,
  SessionBusyError,
} from '../../../src/index.js';
import { instantAgent } from '../../support/instant-agent.js';

describe('break out of for await (… of runStream())', () => {
  it('after the first message: the one model call under way, no more; the session runs again', async () => {
    const client = new ScriptedChatClient(
      Array.from({ length: 40 }, (_, i) => scriptedText(`answer ${i}`)),
    );
    const agent = new Agent({ name: 'talker', client });
    const team = new RoundRobinGroupChat([agent], { maxTurns: 20 });
    const session = team.session('s');
    let seen = 0;
    for await (const item of session.runStream('go')) {
      seen += 1;
      expect(item.type).toBe('TextMessage');
      break;
    }
    expect(seen).toBe(1);
    const afterBreak = client.calls.length;
    expect(afterBreak).toBe(1);
    // Nothing keeps running in the background.
    await new Promise((r) => setImmediate(r));
    expect(client.calls.length).toBe(afterBreak);
    const again = await session.run('more').catch((e: unknown) => e);
    expect(again).not.toBeInstanceOf(SessionBusyError);
    expect((again as { status: string }).status).toBe('terminated');
    expect((again as { stopReason: string }).stopReason).toBe(
      'Maximum number of turns 20 reached.',
    );
  }, 10_000);

  it('breaking after the first agent answer with a streaming agent also stops the model', async () => {
    const client = new ScriptedChatClient(
      Array.from({ length: 40 }, (_, i) => ({ chunks: [`piece ${i} `, 'end'] })),
    );
    const agent = new Agent({ name: 'talker', client, stream: true });
    const team = new RoundRobinGroupChat([agent], { maxTurns: 20 });
    for await (const item of team.runStream('go')) {
      if (item.type === 'ModelClientStreamingChunkEvent') break;
    }
    expect(client.calls.length).toBe(1);
    const again = await team.run().catch((e: unknown) => e);
    expect(again).not.toBeInstanceOf(SessionBusyError);
  }, 10_000);
});

describe('a team of instant agents with no termination condition', () => {
  it('is ended by an AbortController aborted from a setTimeout', async () => {
    let turns = 0;
    const team = new RoundRobinGroupChat([instantAgent('quick', (n) => (turns = n))]);
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 30);
    const run = await team.run('go', { signal: controller.signal });
    expect(run.status).toBe('cancelled');
    expect(run.stopReason).toBeNull();
    expect(turns).toBeGreaterThan(0);
  }, 15_000);
});

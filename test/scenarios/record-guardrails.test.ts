// API.md §19 with §10: a run a guardrail stopped is one of the recording's runs, with its stop
// reason; the next input starts a run of its own. An answer an output guardrail withheld is not
// stored anywhere (that is what the guardrail is for), so a session with one cannot be played
// again: record() says so instead of leaving the run out.
import { describe, expect, it } from 'vitest';
import { z } from 'zod';

import {
  Agent,
  ConfigError,
  guardrail,
  HandoffBuilder,
  replay,
  ScriptedChatClient,
  tool,
} from '../../src/index.js';

const noCards = guardrail({
  name: 'no_card_numbers',
  check: ({ text }) =>
    /\b\d{13,16}\b/.test(text) ? { tripwire: true, info: 'a card number' } : { tripwire: false },
});

function desk(answers: string[], guards: { input?: boolean; output?: boolean } = {}) {
  const clerk = new Agent({
    name: 'clerk',
    description: 'Answers.',
    client: new ScriptedChatClient(answers.map((content) => ({ content }))),
  });
  return new HandoffBuilder({ name: 'guarded', participants: [clerk] })
    .coordinator(clerk)
    .withGuardrails({
      input: guards.input === true ? [noCards] : [],
      output: guards.output === true ? [noCards] : [],
    })
    .build();
}

describe('recording a session a guardrail stopped', () => {
  it('an input guardrail: the stopped run is a run of its own, and replays', async () => {
    const session = desk(['fine'], { input: true }).session('input-trip');
    expect((await session.run('my card is 4111111111111111')).stopReason).toBe(
      'Guardrail "no_card_numbers" tripped: a card number',
    );
    expect((await session.run('hello')).status).toBe('awaiting_input');
    const recording = await session.record();
    expect(
      recording.runs.map((r) => [
        r.input?.map((m) => ('content' in m ? m.content : null)),
        r.turns,
        r.status,
        r.stopReason,
      ]),
    ).toEqual([
      [
        ['my card is 4111111111111111'],
        0,
        'terminated',
        'Guardrail "no_card_numbers" tripped: a card number',
      ],
      [['hello'], 1, 'awaiting_input', null],
    ]);
    expect(await replay(desk(['fine'], { input: true }), recording)).toEqual({
      ok: true,
      turns: 1,
    });
    // Without the guardrail the card number reaches the clerk: the first run no longer stops.
    expect(await replay(desk(['fine']), recording)).toEqual({
      ok: false,
      turns: 1,
      divergence: {
        turn: 1,
        agent: 'clerk',
        what: 'status',
        expected: 'terminated',
        actual: 'cancelled',
      },
    });
  });

  it('an output guardrail: record() refuses, naming the withheld answer', async () => {
    const session = desk(['your card 4111111111111111', 'fine'], { output: true }).session(
      'output-trip',
    );
    expect((await session.run('hi')).stopReason).toBe(
      'Guardrail "no_card_numbers" tripped: a card number',
    );
    await session.run('again');
    const refused = await session.record().catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(ConfigError);
    expect((refused as ConfigError).message).toBe(
      'session("output-trip").record(): output guardrail "no_card_numbers" withheld an answer of this session, and a withheld answer is not stored, so the session cannot be played again. Record a session in which no output guardrail tripped.',
    );
  });

  it('an output guardrail on an answer after a tool call: record() refuses at once', async () => {
    const lookup = tool({
      name: 'lookup',
      description: 'Looks the card up.',
      parameters: z.object({}),
      effect: 'read',
      execute: () => 'found',
    });
    const clerk = new Agent({
      name: 'clerk',
      description: 'Answers.',
      tools: [lookup],
      maxToolIterations: 2,
      client: new ScriptedChatClient([
        { content: null, toolCalls: [{ id: 'c1', name: 'lookup', arguments: '{}' }] },
        { content: 'your card 4111111111111111' },
      ]),
    });
    const workflow = new HandoffBuilder({ name: 'guarded', participants: [clerk] })
      .coordinator(clerk)
      .withGuardrails({ output: [noCards] })
      .build();
    const session = workflow.session('tool-then-trip');
    expect((await session.run('hi')).status).toBe('terminated');
    await expect(session.record()).rejects.toThrow(
      'session("tool-then-trip").record(): output guardrail "no_card_numbers" withheld an answer',
    );
  });
});

import { describe, expect, it } from 'vitest';

import {
  Agent,
  HandoffBuilder,
  type ModelRequest,
  ScriptedChatClient,
  scriptedText,
  scriptedToolCall,
  speakerOf,
  type TaskResult,
} from '../../../src/index.js';

/**
 * Issue 12, item 14: lazy routing never ping-pongs. In one user turn the classifier is never
 * handed back an agent that declined, there are at most participants − 1 reroutes, and then the
 * user is asked (a normal pause).
 */

const PHRASE = 'This is outside my area';
// What the user said last: other agents' turns and handoffs are user turns too (API.md §20).
const lastUser = (request: ModelRequest) =>
  request.messages.findLast((m) => speakerOf(m) === 'user')?.content ?? '';

/** A specialist model: answers its topic, declines everything else with the phrase. */
const specialist = (topic: RegExp, answer: string) =>
  new ScriptedChatClient((request) =>
    scriptedText(
      topic.test(lastUser(request)) ? answer : `${PHRASE}: let me find the right person.`,
    ),
  );

/** How many calls each client gets while `run` runs. */
async function counting(
  clients: Record<string, ScriptedChatClient>,
  run: () => Promise<TaskResult>,
) {
  const before = Object.fromEntries(Object.entries(clients).map(([k, c]) => [k, c.calls.length]));
  const result = await run();
  const calls = Object.fromEntries(
    Object.entries(clients).map(([k, c]) => [k, c.calls.length - (before[k] ?? 0)]),
  );
  return { result, calls };
}

/** The lazy-routing sample's desk: the coordinator classifies by keyword, as a model would. */
function sampleDesk() {
  const triage = new ScriptedChatClient((request) =>
    scriptedToolCall(
      /internet|router/i.test(lastUser(request)) ? 'handoff_to_tech' : 'handoff_to_billing',
    ),
  );
  const billing = specialist(/invoice|refund|INV-/i, 'Refunded INV-1002.');
  const tech = specialist(/internet|router/i, 'Please restart your router.');
  const workflow = new HandoffBuilder({
    name: 'lazy-desk',
    participants: [
      new Agent({ name: 'triage', description: 'Routes requests.', client: triage }),
      new Agent({ name: 'billing', description: 'Invoices and refunds.', client: billing }),
      new Agent({ name: 'tech', description: 'Internet and devices.', client: tech }),
    ],
  })
    .coordinator('triage')
    .withUserReplyRouting('lazy', { handoffPhrase: PHRASE })
    .build();
  return { workflow, clients: { triage, billing, tech } };
}

function expectPause(result: TaskResult) {
  expect(result.status).toBe('awaiting_input');
  expect(result.stopReason).toBeNull();
  expect(result.pendingRequest).toBeDefined();
}

describe('lazy routing is bounded per user turn (item 14)', () => {
  it("the issue's transcript: payment, yes, bye — every turn pauses, no maxTurns stop", async () => {
    const { workflow, clients } = sampleDesk();
    const session = workflow.session('ping-pong');
    const first = await counting(clients, () =>
      session.run('My payment for INV-1002 keeps failing'),
    );
    expectPause(first.result);
    expect(first.result.pendingRequest?.agent).toBe('billing');

    const yes = await counting(clients, () => session.run('yes'));
    expectPause(yes.result);
    // billing declined; it is never handed the turn again, and at most 3 − 1 = 2 reroutes.
    expect(yes.calls.billing).toBe(1);
    expect(yes.calls.tech).toBeLessThanOrEqual(1);
    expect(yes.calls.triage).toBeLessThanOrEqual(2);

    const bye = await counting(clients, () => session.run('bye'));
    expectPause(bye.result);
    expect(bye.calls.triage).toBeLessThanOrEqual(2);
    const thread = await session.messages();
    expect(thread.length).toBeLessThan(40);
    expect(JSON.stringify(thread)).not.toContain('Maximum number of turns');
  });

  it('a function classifier that always picks the decliner: the decliner is not called again', async () => {
    const billing = specialist(/invoice/i, 'Invoice fixed.');
    const tech = specialist(/router/i, 'Router fixed.');
    const triage = new ScriptedChatClient([]);
    const offered: string[][] = [];
    const workflow = new HandoffBuilder({
      participants: [
        new Agent({ name: 'triage', client: triage }),
        new Agent({ name: 'billing', client: billing }),
        new Agent({ name: 'tech', client: tech }),
      ],
    })
      .coordinator('triage')
      .withUserReplyRouting('lazy', {
        classifier: (_text: string, participants: readonly { name: string }[]) => {
          offered.push(participants.map((p) => p.name));
          return 'billing';
        },
      })
      .build();
    const session = workflow.session('stubborn');
    expectPause(await session.run('my invoice is wrong'));
    offered.length = 0;
    const { result, calls } = await counting({ billing, tech, triage }, () =>
      session.run('and the weather?'),
    );
    expectPause(result);
    expect(calls.billing).toBe(1);
    expect(calls.triage).toBe(0);
    expect(offered.length).toBeLessThanOrEqual(2);
  });

  it('the classifier is told who declined: no decliner is among the candidates it is offered', async () => {
    const billing = specialist(/invoice/i, 'Invoice fixed.');
    const tech = specialist(/router/i, 'Router fixed.');
    const offered: string[][] = [];
    const workflow = new HandoffBuilder({
      participants: [
        new Agent({
          name: 'triage',
          client: new ScriptedChatClient(() => scriptedText('How can I help?')),
        }),
        new Agent({ name: 'billing', client: billing }),
        new Agent({ name: 'tech', client: tech }),
      ],
    })
      .coordinator('triage')
      .withUserReplyRouting('lazy', {
        // Prefers billing, then any specialist, then whoever is offered.
        classifier: (_text: string, participants: readonly { name: string }[]) => {
          const names = participants.map((p) => p.name);
          offered.push(names);
          return (
            names.find((n) => n === 'billing') ??
            names.find((n) => n !== 'triage') ??
            names[0] ??
            'triage'
          );
        },
      })
      .build();
    const session = workflow.session('told');
    expectPause(await session.run('my invoice is wrong'));
    offered.length = 0;
    const { result, calls } = await counting({ billing, tech }, () =>
      session.run('and the weather?'),
    );
    expectPause(result);
    expect(calls.billing).toBe(1);
    expect(calls.tech).toBeLessThanOrEqual(1);
    expect(offered.length).toBeGreaterThan(0);
    expect(offered.length).toBeLessThanOrEqual(2);
    // billing declined first: never offered again; tech, once it declined, neither.
    for (const names of offered) expect(names).not.toContain('billing');
    if (offered.length === 2) expect(offered[1]).not.toContain('tech');
  });

  it('four participants, every specialist declines: at most 3 reroutes, each specialist at most once', async () => {
    const names = ['billing', 'tech', 'account'] as const;
    const clients = Object.fromEntries(
      names.map((n) => [n, specialist(new RegExp(`^${n}$`), `${n} here.`)]),
    ) as Record<(typeof names)[number], ScriptedChatClient>;
    let next = 0;
    const triage = new ScriptedChatClient(() =>
      scriptedToolCall(`handoff_to_${names[next++ % 3]}`),
    );
    const workflow = new HandoffBuilder({
      participants: [
        new Agent({ name: 'triage', client: triage }),
        ...names.map((n) => new Agent({ name: n, client: clients[n] })),
      ],
    })
      .coordinator('triage')
      .withUserReplyRouting('lazy')
      .build();
    const session = workflow.session('nobody');
    expectPause(await session.run('billing'));
    const { result, calls } = await counting({ triage, ...clients }, () =>
      session.run('something else'),
    );
    expectPause(result);
    expect(calls.triage).toBeLessThanOrEqual(3);
    for (const n of names) expect(calls[n]).toBeLessThanOrEqual(1);
    expect(result.messages.length).toBeLessThan(30);
  });

  it('control: a decline followed by a willing specialist routes in the same run', async () => {
    const { workflow, clients } = sampleDesk();
    const session = workflow.session('switch');
    expectPause(await session.run('Refund INV-1002 please'));
    const { result, calls } = await counting(clients, () =>
      session.run('Also my internet is down'),
    );
    expectPause(result);
    expect(result.pendingRequest?.agent).toBe('tech');
    expect(result.pendingRequest?.prompt).toBe('Please restart your router.');
    expect(calls).toEqual({ triage: 1, billing: 1, tech: 1 });
  });
});

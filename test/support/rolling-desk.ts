/**
 * The desk of the rolling-deploy test (test/integration/workers-rolling-deploy.test.ts), as two
 * builds have it: `old`, and `new` with a compatible change (one more agent, one more tool, other
 * instructions: another fingerprint), and `no-refund`, an incompatible one (the refund tool gone,
 * which the sessions paused on a refund's approval wait on). Its model is a function of the thread, so any worker of
 * either build makes any turn: "refund" asks for a refund (needs approval), "charge" charges once
 * (`effect: "once"`; it never returns in the process that seeds the sessions, which cancels it,
 * leaving the call in doubt), a tool's result is answered `done: <result>`, any other text
 * `reply: <text>`.
 *
 * As a module for `baton worker`: RD_ENGINE (`pg` or `redis`), RD_STORE, RD_NAME and RD_BUILD.
 */
import { z } from 'zod';

import {
  Agent,
  type CheckpointStore,
  HandoffBuilder,
  type HandoffWorkflow,
  type ModelRequest,
  ScriptedChatClient,
  type ScriptedStep,
  speakerOf,
  tool,
} from '../../src/index.js';
import { storeOf } from './queue-desk.js';

function lastUserText(request: ModelRequest): string {
  const texts = request.messages.filter((m) => speakerOf(m) === 'user');
  return texts.at(-1)?.content ?? '';
}

export function rollingDesk(
  store: CheckpointStore,
  name: string,
  build: 'old' | 'new' | 'no-refund',
  charge: () => Promise<string> = async () => 'charged',
): HandoffWorkflow {
  const refund = tool({
    name: 'refund',
    description: 'Refunds a charge.',
    parameters: z.object({}),
    needsApproval: true,
    effect: 'once',
    execute: () => 'refunded',
  });
  const tools = [
    ...(build === 'no-refund' ? [] : [refund]),
    tool({
      name: 'charge',
      description: 'Charges the card.',
      parameters: z.object({}),
      effect: 'once',
      execute: charge,
    }),
    ...(build === 'new'
      ? [
          tool({
            name: 'lookup',
            description: 'Looks an invoice up.',
            parameters: z.object({}),
            effect: 'read',
            execute: () => 'found',
          }),
        ]
      : []),
  ];
  const client = new ScriptedChatClient((request): ScriptedStep => {
    const last = request.messages.at(-1);
    if (last?.role === 'tool') return { content: `done: ${last.content ?? ''}` };
    const text = lastUserText(request);
    const call = text.includes('refund') ? 'refund' : text.includes('charge') ? 'charge' : '';
    if (call !== '') {
      return { content: null, toolCalls: [{ id: `${call}-1`, name: call, arguments: '{}' }] };
    }
    return { content: `reply: ${text}` };
  });
  const triage = new Agent({
    name: 'triage',
    instructions: build === 'new' ? 'You run the desk (new build).' : 'You run the desk.',
    client,
    tools,
    maxToolIterations: 2,
  });
  const participants =
    build === 'new'
      ? [triage, new Agent({ name: 'sales', client: new ScriptedChatClient([]) })]
      : [triage];
  return new HandoffBuilder({ name, participants })
    .coordinator('triage')
    .withCheckpointing(store)
    .build();
}

const engine = process.env.RD_ENGINE === 'redis' ? 'redis' : 'pg';
export const workflow =
  process.env.RD_NAME === undefined
    ? undefined
    : rollingDesk(
        storeOf(engine, process.env.RD_STORE ?? 'baton_rd'),
        process.env.RD_NAME,
        process.env.RD_BUILD === 'new' || process.env.RD_BUILD === 'no-refund'
          ? process.env.RD_BUILD
          : 'old',
      );

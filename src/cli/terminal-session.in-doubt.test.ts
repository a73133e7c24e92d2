import { describe, expect, it } from 'vitest';

import type { Task, TaskResult } from '../engine/runnable.js';
import type { FunctionCall } from '../messages/message.js';
import { type TerminalIO, type TerminalSession, talk } from './terminal-session.js';

const call = (id: string): FunctionCall => ({
  id,
  name: 'refund',
  arguments: `{"invoiceId":"${id}"}`,
});

/** A session paused on three calls in doubt; its next run ends. */
function doubtSession(): TerminalSession & { tasks: unknown[] } {
  const tasks: unknown[] = [];
  return {
    id: 's',
    tasks,
    info: async () => ({
      status: 'awaiting_input',
      step: 3,
      pendingRequest: {
        id: 'r1',
        agent: 'billing',
        prompt: 'In doubt',
        kind: 'in_doubt',
        calls: [call('c1'), call('c2'), call('c3')],
      },
    }),
    messages: async () => [],
    runStream: async function* (task?: Task) {
      tasks.push(task);
      const done: TaskResult = {
        type: 'TaskResult',
        messages: [],
        stopReason: 'done',
        status: 'terminated',
        sessionId: 's',
        usage: { promptTokens: 0, completionTokens: 0 },
      };
      yield done;
    },
  };
}

describe('talk(): calls in doubt', () => {
  it('asks retry / skip / the result per call, and sends approve, reject and resolve', async () => {
    const lines = ['r', '', 'Refunded c3 at the bank.'];
    const asked: string[] = [];
    const terminal: TerminalIO = {
      color: false,
      echoInput: false,
      ask: async (prompt) => {
        asked.push(prompt);
        return lines.shift() ?? null;
      },
      write: () => {},
      onInterrupt: () => {},
    };
    const session = doubtSession();
    await talk(terminal, session, { intro: ['intro'], clock: () => 0 });
    expect(asked).toEqual(
      ['c1', 'c2', 'c3'].map(
        (id) =>
          `billing's call refund({"invoiceId":"${id}"}) may or may not have completed. ` +
          '[r]etry, [s]kip, or type its result: ',
      ),
    );
    expect(session.tasks).toEqual([
      [
        expect.objectContaining({
          type: 'ToolApprovalResponseEvent',
          callId: 'c1',
          approved: true,
        }),
        expect.objectContaining({
          type: 'ToolApprovalResponseEvent',
          callId: 'c2',
          approved: false,
        }),
        expect.objectContaining({
          type: 'ToolApprovalResponseEvent',
          callId: 'c3',
          approved: true,
          result: 'Refunded c3 at the bank.',
        }),
      ],
    ]);
  });
});

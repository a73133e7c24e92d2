import { describe, expect, it } from 'vitest';

import type { Task, TaskResult } from '../engine/runnable.js';
import type { AgentMessage, FunctionCall } from '../messages/message.js';
import {
  textMessage,
  toolApprovalRequestEvent,
  toolCallRequestEvent,
} from '../messages/message-factories.js';
import { type TerminalIO, type TerminalSession, talk } from './terminal-session.js';

/** A terminal that answers `lines` in order and records what happens to it. */
function recordingTerminal(lines: string[]): TerminalIO & { seen: string[] } {
  const seen: string[] = [];
  return {
    seen,
    color: false,
    echoInput: false,
    ask: async () => lines.shift() ?? null,
    write: (text) => void seen.push(`write ${text.trim()}`),
    onInterrupt: () => {},
    close: () => void seen.push('close'),
  };
}

/** A session whose run fails the way a model that cannot be reached does. */
const failingSession: TerminalSession = {
  id: 's',
  info: async () => ({ status: 'idle', step: 0 }),
  messages: async () => [],
  runStream: (): AsyncIterable<AgentMessage | TaskResult> => ({
    [Symbol.asyncIterator]: () => ({
      next: () => Promise.reject(new Error('Model "m" at http://127.0.0.1:9/v1 request failed')),
    }),
  }),
};

describe('talk()', () => {
  it('closes the terminal when a run fails, so a TTY does not hang, and rejects', async () => {
    const terminal = recordingTerminal(['hello']);
    await expect(talk(terminal, failingSession, { intro: ['intro'] })).rejects.toThrow(
      'Model "m" at http://127.0.0.1:9/v1 request failed',
    );
    expect(terminal.seen).toEqual(['write intro', 'close']);
  });

  it('closes the terminal when the conversation ends normally', async () => {
    const terminal = recordingTerminal([]);
    expect(await talk(terminal, failingSession, { intro: ['intro'] })).toBe(0);
    expect(terminal.seen.at(-1)).toBe('close');
  });
});

/** The model's call, its arguments valid JSON with a carriage return that would hide "5000". */
const refund: FunctionCall = {
  id: 'c1',
  name: 'refund',
  arguments: '{"amount":5000,\r"note":"amount 5"}',
};

const result = (status: TaskResult['status'], messages: AgentMessage[] = []): TaskResult => ({
  type: 'TaskResult',
  messages,
  stopReason: status === 'terminated' ? 'done' : null,
  status,
  sessionId: 's',
  usage: { promptTokens: 0, completionTokens: 0 },
  ...(status === 'awaiting_input'
    ? {
        pendingRequest: {
          id: 'r1',
          agent: 'bill\x1b[2Jing',
          prompt: `Approval needed: refund(${refund.arguments})`,
          kind: 'approval' as const,
          calls: [refund],
        },
      }
    : {}),
});

/** A session that pauses for the approval of `refund`, then ends; `tick` runs in each run. */
function approvalSession(tick = () => {}): TerminalSession & { tasks: unknown[] } {
  const tasks: unknown[] = [];
  return {
    id: 's',
    tasks,
    info: async () => ({ status: 'idle', step: 0 }),
    messages: async () => [textMessage({ source: 'user', content: 'refund it' })],
    runStream: async function* (task?: Task) {
      tasks.push(task);
      tick();
      if (tasks.length === 1) {
        yield toolCallRequestEvent({ source: 'bill\x1b[2Jing', content: [refund] });
        yield toolApprovalRequestEvent({ source: 'bill\x1b[2Jing', content: [refund] });
        yield result('awaiting_input');
      } else {
        yield result('terminated');
      }
    },
  };
}

/** A terminal that records what it writes and the prompts it shows. */
function promptingTerminal(lines: string[], onAsk = () => {}): TerminalIO & { seen: string[] } {
  const seen: string[] = [];
  return {
    seen,
    color: false,
    echoInput: false,
    ask: async (prompt) => {
      seen.push(`ask ${prompt}`);
      onAsk();
      return lines.shift() ?? null;
    },
    write: (text) => void seen.push(`write ${text}`),
    onInterrupt: () => {},
  };
}

describe('talk(): approvals', () => {
  it('asks once per call, with the arguments on the prompt line and every control made visible', async () => {
    const terminal = promptingTerminal(['refund it', 'y']);
    const session = approvalSession();
    await talk(terminal, session, { intro: ['Baton: desk\x1b[2J', ''], clock: () => 0 });
    expect(terminal.seen.slice(0, 4)).toEqual([
      'write Baton: desk\\x1b[2J\n\n',
      'ask you> ',
      'ask bill\\x1b[2Jing wants to run refund({"amount":5000,\\r"note":"amount 5"}). Approve? [y/N] ',
      'write ---------- Summary ----------\nNumber of messages: 1\nFinish reason: done\n' +
        'Total prompt tokens: 0\nTotal completion tokens: 0\n' +
        'Duration: 0.00 seconds (time at the prompt not counted)\n',
    ]);
    expect(session.tasks).toEqual([
      'refund it',
      [
        expect.objectContaining({
          type: 'ToolApprovalResponseEvent',
          callId: 'c1',
          approved: true,
        }),
      ],
    ]);
  });

  it('on resuming a pause for approval, says how many messages and asks only the y/N question', async () => {
    const terminal = promptingTerminal([]);
    const session = approvalSession();
    const paused = result('awaiting_input');
    await talk(
      terminal,
      {
        ...session,
        info: async () => ({
          status: 'awaiting_input',
          step: 1,
          ...(paused.pendingRequest === undefined ? {} : { pendingRequest: paused.pendingRequest }),
        }),
      },
      { intro: ['intro'], clock: () => 0 },
    );
    expect(terminal.seen.slice(0, 3)).toEqual([
      'write intro\n',
      'write Resuming session s: 1 message so far (awaiting_input).\n',
      'ask bill\\x1b[2Jing wants to run refund({"amount":5000,\\r"note":"amount 5"}). Approve? [y/N] ',
    ]);
  });
});

describe('talk(): duration', () => {
  it('counts the time in runs, not the time the user spends at the prompt', async () => {
    let now = 0;
    const terminal = promptingTerminal(['refund it', 'y'], () => (now += 60_000));
    await talk(
      terminal,
      approvalSession(() => (now += 750)),
      {
        intro: ['intro'],
        clock: () => now,
      },
    );
    expect(terminal.seen.at(-1)).toMatch(
      /\nDuration: 1\.50 seconds \(time at the prompt not counted\)\n$/,
    );
  });
});

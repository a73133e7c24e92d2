import { describe, expect, it } from 'vitest';

import type { TaskResult } from '../engine/runnable.js';
import type { AgentMessage } from '../messages/message.js';
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

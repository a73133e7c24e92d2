import type { ChatAgent } from '../../src/agents/chat-agent.js';
import { textMessage } from '../../src/messages/message-factories.js';

/**
 * A `ChatAgent` that answers at once, without I/O: its `respond()` returns a resolved promise, so
 * a run of such agents chains only microtasks. `onTurn` sees the count of its answers so far.
 */
export function instantAgent(name: string, onTurn: (turns: number) => void = () => {}): ChatAgent {
  let turns = 0;
  return {
    name,
    description: `${name} answers at once`,
    respond: () => {
      onTurn(++turns);
      return Promise.resolve({ chatMessage: textMessage({ source: name, content: 'again' }) });
    },
  };
}

import { describe, expect, it } from 'vitest';

import { Agent } from '../../agents/agent.js';
import { type AgentContext, type ChatAgent, mayShareThread } from '../../agents/chat-agent.js';
import { textMessage } from '../../messages/message-factories.js';
import type { AgentMessage } from '../../messages/message.js';
import { MemoryCheckpointStore } from '../../checkpoint/memory-checkpoint-store.js';
import { ScriptedChatClient } from '../../models/scripted-chat-client.js';
import { RoundRobinGroupChat } from '../../orchestrations/teams/round-robin-group-chat.js';
import {
  applyStep,
  initialSessionState,
  type SessionState,
  SessionStateSchema,
} from './session-state.js';
import { liveThread } from './thread-line.js';

const say = (content: string) => textMessage({ source: 'user', content });
const contents = (thread: readonly AgentMessage[]) =>
  thread.map((m) => ('content' in m ? m.content : m.type));
const step = (state: SessionState, ...texts: string[]) =>
  applyStep(state, { event: 'user_input', append: texts.map(say) }).state;

describe('the thread of a line of states', () => {
  it('grows the array of the state a step follows, while nobody else holds it', () => {
    const first = step(initialSessionState('input', null), 'a');
    const live = liveThread(first);
    const second = step(first, 'b');
    expect(liveThread(second)).toBe(live);
    expect(contents(live)).toEqual(['a', 'b']);
    // The earlier state still reads as the value it was: its own prefix, copied once.
    expect(contents(first.thread)).toEqual(['a']);
    expect(first.thread).toBe(first.thread);
    expect(contents(second.thread)).toEqual(['a', 'b']);
  });

  it('never grows an array once `thread` gave it out: the next step copies it', () => {
    const first = step(initialSessionState('input', null), 'a');
    const given = first.thread;
    const second = step(first, 'b');
    const live = liveThread(second);
    expect(given).toHaveLength(1);
    expect(live).not.toBe(given);
    // The new line grows in place again until its array is given out.
    expect(liveThread(step(second, 'c'))).toBe(live);
    expect(contents(second.thread)).toEqual(['a', 'b']);
  });

  it('starts a new line for a step from a state that is no longer the last (a failed commit)', () => {
    const first = step(initialSessionState('input', null), 'a');
    const committed = step(first, 'b');
    const retried = step(first, 'c');
    expect(contents(first.thread)).toEqual(['a']);
    expect(contents(committed.thread)).toEqual(['a', 'b']);
    expect(contents(retried.thread)).toEqual(['a', 'c']);
    expect(contents(step(committed, 'd').thread)).toEqual(['a', 'b', 'd']);
  });

  it('shares the line for a step that appends nothing, and reads as a plain value', () => {
    const first = step(initialSessionState('input', null), 'a');
    const moved = applyStep(first, { event: 'stop', machineState: 'stopped' }).state;
    expect(liveThread(moved)).toBe(liveThread(first));
    const later = step(moved, 'b');
    for (const copy of [
      JSON.parse(JSON.stringify(moved)) as SessionState,
      { ...moved },
      structuredClone(moved),
      SessionStateSchema.parse(moved),
    ]) {
      expect(contents(copy.thread)).toEqual(['a']);
      expect(copy.machineState).toBe('stopped');
    }
    expect(Object.keys(moved)).toContain('thread');
    expect(contents(later.thread)).toEqual(['a', 'b']);
  });

  it("gives a step's patches its own messages, however late they are read", () => {
    const first = applyStep(initialSessionState('input', null), {
      event: 'user_input',
      append: [say('a')],
    });
    const second = applyStep(first.state, { event: 'user_input', append: [say('b'), say('c')] });
    step(second.state, 'd');
    const added = (patches: typeof first.patches) =>
      patches.filter((p) => p.path[0] === 'thread').map((p) => [p.path[1], contents([p.value])[0]]);
    expect(added(first.patches)).toEqual([[0, 'a']]);
    expect(added(second.patches)).toEqual([
      [1, 'b'],
      [2, 'c'],
    ]);
  });
});

describe('which agents are given the live thread', () => {
  it("gives it to this library's Agent only, not to an agent that may keep it", () => {
    const client = new ScriptedChatClient([]);
    class Keeping extends Agent {
      override takeTurn(ctx: AgentContext) {
        return super.takeTurn(ctx);
      }
    }
    const custom: ChatAgent = {
      name: 'custom',
      description: '',
      respond: () => Promise.resolve({ chatMessage: say('x') }),
    };
    expect(mayShareThread(new Agent({ name: 'own', client }))).toBe(true);
    expect(mayShareThread(new Keeping({ name: 'keeping', client }))).toBe(false);
    expect(mayShareThread(custom)).toBe(false);
  });

  it('an agent that keeps its conversation keeps what it was shown, turn after turn', async () => {
    const kept: { conversation: readonly AgentMessage[]; length: number }[] = [];
    const keeper: ChatAgent = {
      name: 'keeper',
      description: 'keeps every conversation it is shown',
      respond(ctx) {
        kept.push({ conversation: ctx.conversation, length: ctx.conversation.length });
        return Promise.resolve({
          chatMessage: textMessage({
            source: 'keeper',
            content: `seen ${ctx.conversation.length}`,
          }),
        });
      },
    };
    const helper = new Agent({
      name: 'helper',
      client: new ScriptedChatClient(['one', 'two', 'three'].map((content) => ({ content }))),
    });
    const team = new RoundRobinGroupChat([keeper, helper], { maxTurns: 2 });
    for (const task of ['first', 'second', 'third']) await team.run(task);
    expect(kept.map((k) => k.length)).toEqual([1, 4, 7]);
    expect(kept.map((k) => k.conversation.length)).toEqual([1, 4, 7]);
    expect(contents(kept[1]?.conversation ?? [])).toEqual(['first', 'seen 1', 'one', 'second']);
  });
});

describe('a step the store refuses', () => {
  it('leaves the thread as committed, in memory and in the store', async () => {
    class RefusingStore extends MemoryCheckpointStore {
      refuse = false;
      override async append(...args: Parameters<MemoryCheckpointStore['append']>) {
        if (this.refuse) {
          this.refuse = false;
          throw new Error('store unreachable');
        }
        return super.append(...args);
      }
    }
    const store = new RefusingStore();
    const team = () =>
      new RoundRobinGroupChat(
        [
          new Agent({
            name: 'a',
            client: new ScriptedChatClient((_r, i) => ({ content: `answer ${i + 1}` })),
          }),
        ],
        { maxTurns: 1, checkpointStore: store },
      );
    const session = team().session('s');
    await session.run('first');
    store.refuse = true;
    await expect(session.run('second')).rejects.toThrow('store unreachable');
    const kept = contents(await session.messages());
    expect(kept).toEqual(['first', 'answer 1']);
    await session.run('third');
    const expected = ['first', 'answer 1', 'third', 'answer 2'];
    expect(contents(await session.messages())).toEqual(expected);
    expect(contents(await team().session('s').messages())).toEqual(expected);
  });
});

import { describe, expect, it } from 'vitest';

import { Agent } from '../../agents/agent.js';
import type { ChatAgent } from '../../agents/chat-agent.js';
import { MemoryCheckpointStore } from '../../checkpoint/memory-checkpoint-store.js';
import type { AgentMessage } from '../../messages/message.js';
import { textMessage } from '../../messages/message-factories.js';
import { ScriptedChatClient } from '../../models/scripted-chat-client.js';
import { RoundRobinGroupChat } from '../../orchestrations/teams/round-robin-group-chat.js';
import { SelectorGroupChat } from '../../orchestrations/teams/selector-group-chat.js';
import {
  applyStep,
  initialSessionState,
  type SessionState,
  SessionStateSchema,
} from './session-state.js';
import { threadOf } from './state-thread.js';

const say = (content: string) => textMessage({ source: 'user', content });
const contents = (thread: Iterable<AgentMessage>) =>
  [...thread].map((m) => ('content' in m ? m.content : m.type));
const step = (state: SessionState, ...texts: string[]) =>
  applyStep(state, { kind: 'input', append: texts.map(say) }).state;
const answering = (name: string) =>
  new Agent({
    name,
    client: new ScriptedChatClient((_r, i) => ({ content: `${name} ${i + 1}` })),
  });
let sessions = 0;
const sessionId = () => `state-thread-${process.pid}-${++sessions}`;

describe('a plain-JS agent that pushes onto the thread it is given', () => {
  /** An agent as plain JavaScript writes it: it pushes onto `ctx.conversation`. */
  const pusher = (swallow: boolean): ChatAgent => ({
    name: 'pusher',
    description: 'pushes onto its conversation',
    respond(ctx) {
      const push = () => (ctx.conversation as AgentMessage[]).push(say('junk'));
      if (swallow) {
        try {
          push();
        } catch {
          // A frozen conversation: the agent goes on.
        }
      } else {
        push();
      }
      return Promise.resolve({
        chatMessage: textMessage({ source: 'pusher', content: `seen ${ctx.conversation.length}` }),
      });
    },
  });

  it('changes no saved state, no later state and nothing in the store', async () => {
    const store = new MemoryCheckpointStore();
    const team = () =>
      new RoundRobinGroupChat([pusher(true)], { maxTurns: 1, checkpointStore: store });
    const id = sessionId();
    const session = team().session(id);
    await session.run('first');
    const saved = await session.saveState();
    await session.run('second');
    const expected = ['first', 'seen 1', 'second', 'seen 3'];
    expect(contents(await session.messages())).toEqual(expected);
    expect(contents((saved as SessionState).thread)).toEqual(['first', 'seen 1']);
    expect(contents(await team().session(id).messages())).toEqual(expected);
  });

  it('fails its turn with the TypeError of a frozen array, and the state stays as committed', async () => {
    const session = new RoundRobinGroupChat([pusher(false)], { maxTurns: 1 }).session();
    await expect(session.run('first')).rejects.toThrow(
      /^Agent "pusher" failed in session ".*": Cannot add property 1, object is not extensible$/,
    );
    expect(contents(await session.messages())).toEqual(['first']);
  });
});

describe('a thread kept past its step', () => {
  it("an orchestration's hook that keeps each thread it is given sees the value it was", async () => {
    const kept: { thread: readonly AgentMessage[]; then: unknown[] }[] = [];
    const team = new SelectorGroupChat([answering('a'), answering('b')], {
      selectorFunc: (thread) => {
        kept.push({ thread, then: contents(thread) });
        return thread.length % 2 === 0 ? 'a' : 'b';
      },
      maxTurns: 2,
    });
    for (const task of ['first', 'second', 'third']) await team.run(task);
    expect(kept.map((k) => k.thread.length)).toEqual([1, 2, 4, 5, 7, 8]);
    for (const k of kept) expect(contents(k.thread)).toEqual(k.then);
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
    const team = new RoundRobinGroupChat([keeper, answering('helper')], { maxTurns: 2 });
    for (const task of ['first', 'second', 'third']) await team.run(task);
    expect(kept.map((k) => k.length)).toEqual([1, 4, 7]);
    expect(kept.map((k) => k.conversation.length)).toEqual([1, 4, 7]);
    expect(contents(kept[1]?.conversation ?? [])).toEqual([
      'first',
      'seen 1',
      'helper 1',
      'second',
    ]);
  });

  it('a fork of an earlier step keeps the thread of that step, however both go on', async () => {
    const store = new MemoryCheckpointStore();
    const team = new RoundRobinGroupChat([answering('a')], { maxTurns: 1, checkpointStore: store });
    const id = sessionId();
    const source = team.session(id);
    await source.run('first');
    const { step } = await source.info();
    await source.run('second');
    const fork = team.session(`${id}-fork`, { from: { session: id, step } });
    expect(contents(await fork.messages())).toEqual(['first', 'a 1']);
    await fork.run('elsewhere');
    await source.run('third');
    expect(contents(await fork.messages())).toEqual(['first', 'a 1', 'elsewhere', 'a 3']);
    expect(contents(await source.messages())).toEqual([
      'first',
      'a 1',
      'second',
      'a 2',
      'third',
      'a 4',
    ]);
  });
});

describe('the thread of a state', () => {
  it('an orchestration that keeps the thread it reads from a state sees the value it was', () => {
    // What this library's orchestrations read (`threadOf`), kept past the step as a careless new
    // orchestration might; the engine's accessor it replaces handed out the array later steps grew.
    let state = step(initialSessionState('input', null), 'a');
    const kept = threadOf(state);
    const keptView = kept.messages;
    state = step(state, 'b');
    const second = threadOf(state);
    state = step(step(state, 'c'), 'd');
    expect(contents(kept)).toEqual(['a']);
    expect(contents(keptView)).toEqual(['a']);
    expect(contents(second)).toEqual(['a', 'b']);
    expect(contents(threadOf(state))).toEqual(['a', 'b', 'c', 'd']);
  });

  it('holding an old state, or forking from it, keeps its thread', () => {
    const first = step(initialSessionState('input', null), 'a');
    const read = threadOf(first);
    const later = step(step(first, 'b'), 'c');
    const fork = step(first, 'x');
    expect(contents(threadOf(first))).toEqual(['a']);
    expect(contents(read)).toEqual(['a']);
    expect(contents(first.thread)).toEqual(['a']);
    expect(contents(threadOf(fork))).toEqual(['a', 'x']);
    expect(contents(step(later, 'd').thread)).toEqual(['a', 'b', 'c', 'd']);
    expect(contents(step(fork, 'y').thread)).toEqual(['a', 'x', 'y']);
  });

  it('is a value: a held state keeps its thread however many steps follow', () => {
    const first = step(initialSessionState('input', null), 'a');
    const second = step(first, 'b');
    const forked = step(first, 'c');
    expect(contents(first.thread)).toEqual(['a']);
    expect(contents(second.thread)).toEqual(['a', 'b']);
    expect(contents(forked.thread)).toEqual(['a', 'c']);
    expect(contents(step(second, 'd').thread)).toEqual(['a', 'b', 'd']);
    expect(contents(step(forked, 'e').thread)).toEqual(['a', 'c', 'e']);
    expect(first.thread).toBe(first.thread);
    expect(Object.isFrozen(second.thread)).toBe(true);
  });

  it('is shared by a step that appends nothing, and reads as a plain value', () => {
    const first = step(initialSessionState('input', null), 'a');
    const moved = applyStep(first, {
      kind: 'stop',
      complete: false,
      machineState: 'stopped',
    }).state;
    expect(threadOf(moved)).toBe(threadOf(first));
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

  it('is read as a thread of its own when the state was made elsewhere (a spread, a parse)', () => {
    const first = step(initialSessionState('input', null), 'a');
    expect(threadOf({ ...first })).toBe(threadOf(first));
    const parsed = SessionStateSchema.parse(JSON.parse(JSON.stringify(first)));
    expect(contents(threadOf(parsed))).toEqual(['a']);
    expect(contents(step(parsed, 'b').thread)).toEqual(['a', 'b']);
  });

  it("gives a step's change its own messages, however late it is read", () => {
    const first = applyStep(initialSessionState('input', null), {
      kind: 'input',
      append: [say('a')],
    });
    const second = applyStep(first.state, { kind: 'input', append: [say('b'), say('c')] });
    step(second.state, 'd');
    expect(contents(first.change.append ?? [])).toEqual(['a']);
    expect(contents(second.change.append ?? [])).toEqual(['b', 'c']);
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
      new RoundRobinGroupChat([answering('a')], { maxTurns: 1, checkpointStore: store });
    const id = sessionId();
    const session = team().session(id);
    await session.run('first');
    store.refuse = true;
    await expect(session.run('second')).rejects.toThrow('store unreachable');
    const kept = contents(await session.messages());
    expect(kept).toEqual(['first', 'a 1']);
    await session.run('third');
    const expected = ['first', 'a 1', 'third', 'a 2'];
    expect(contents(await session.messages())).toEqual(expected);
    expect(contents(await team().session(id).messages())).toEqual(expected);
  });
});

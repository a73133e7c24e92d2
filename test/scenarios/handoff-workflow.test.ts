import { describe, expect, it } from 'vitest';

import {
  type AgentMessage,
  ConfigError,
  HandoffBuilder,
  MaxMessageTermination,
  SessionBusyError,
  type TaskResult,
  TextMentionTermination,
  textMessage,
} from '../../src/index.js';
import { FakeAgent, type SeenTurn, transcript } from '../support/fake-agent.js';

function desk(script: {
  triage?: ConstructorParameters<typeof FakeAgent>[1];
  billing?: ConstructorParameters<typeof FakeAgent>[1];
  tech?: ConstructorParameters<typeof FakeAgent>[1];
}) {
  const log: SeenTurn[] = [];
  const triage = new FakeAgent('triage', script.triage ?? [], log);
  const billing = new FakeAgent('billing', script.billing ?? [], log);
  const tech = new FakeAgent('tech', script.tech ?? [], log);
  return {
    log,
    triage,
    billing,
    tech,
    builder: new HandoffBuilder({
      name: 'support',
      participants: [triage, billing, tech],
    }).coordinator(triage),
  };
}

describe('HandoffWorkflow', () => {
  it('routes through the coordinator to a specialist and pauses for the user', async () => {
    const { log, builder } = desk({
      triage: [{ handoff: 'billing' }],
      billing: [{ say: 'Which invoice?' }],
    });
    const workflow = builder.build();
    const result = await workflow.run('My invoice is wrong');

    expect(transcript(result.messages)).toEqual([
      'TextMessage(user): My invoice is wrong',
      'ToolCallRequestEvent(triage)',
      'ToolCallExecutionEvent(triage)',
      'HandoffMessage(triage): Transferred to billing, adopting the role of billing immediately.',
      'TextMessage(billing): Which invoice?',
      'UserInputRequestedEvent(billing): Which invoice?',
    ]);
    expect(result.status).toBe('awaiting_input');
    expect(result.stopReason).toBeNull();
    const pause = result.messages[5];
    expect(result.pendingRequest).toEqual({
      id: pause?.type === 'UserInputRequestedEvent' ? pause.requestId : 'missing',
      agent: 'billing',
      prompt: 'Which invoice?',
      kind: 'input',
    });
    expect(result.sessionId).toBe('default');
    expect(log.map((t) => [t.agent, t.handoffs])).toEqual([
      ['triage', ['handoff_to_billing', 'handoff_to_tech']],
      ['billing', []],
    ]);
    expect(log[1]?.newMessages).toEqual([
      'user: My invoice is wrong',
      'triage: Transferred to billing, adopting the role of billing immediately.',
    ]);
  });

  it('delivers the reply to the coordinator by default, without re-running anything', async () => {
    const { log, builder } = desk({
      triage: [{ handoff: 'billing' }, { handoff: 'billing' }],
      billing: [{ say: 'Which invoice?' }, { say: 'Refunded.' }],
    });
    const workflow = builder.build();
    await workflow.run('My invoice is wrong');
    const second = await workflow.run('INV-7');

    expect(transcript(second.messages).slice(0, 1)).toEqual(['TextMessage(user): INV-7']);
    expect(log.map((t) => t.agent)).toEqual(['triage', 'billing', 'triage', 'billing']);
    expect(second.pendingRequest?.prompt).toBe('Refunded.');
    expect((await workflow.session('default').messages()).length).toBe(12);
  });

  it('delivers the reply to the agent that asked with last_agent routing', async () => {
    const { log, builder } = desk({
      triage: [{ handoff: 'billing' }],
      billing: [{ say: 'Which invoice?' }, { say: 'Refunded.' }],
    });
    const workflow = builder.withUserReplyRouting('last_agent').build();
    await workflow.run('My invoice is wrong');
    await workflow.run('INV-7');
    expect(log.map((t) => t.agent)).toEqual(['triage', 'billing', 'billing']);
    expect(log[2]?.newMessages).toEqual(['user: INV-7']);
  });

  it('lets a specialist escalate only along addHandoff edges', async () => {
    const { builder } = desk({
      triage: [{ handoff: 'billing' }],
      billing: [{ handoff: 'tech' }],
      tech: [{ say: 'Reset your router.' }],
    });
    const workflow = builder.addHandoff('billing', ['tech']).build();
    const result = await workflow.run('Internet down after payment');
    expect(
      result.messages
        .filter((m) => m.type === 'HandoffMessage')
        .map((m) => [m.source, m.type === 'HandoffMessage' && m.target]),
    ).toEqual([
      ['triage', 'billing'],
      ['billing', 'tech'],
    ]);
    expect(result.pendingRequest?.agent).toBe('tech');
  });

  it('rejects a handoff the topology does not allow, keeping the thread', async () => {
    const { builder } = desk({ triage: [{ handoff: 'billing' }], billing: [{ handoff: 'tech' }] });
    const workflow = builder.build();
    await expect(workflow.run('help')).rejects.toThrow(
      'Agent "billing" handed off to "tech", which workflow "support" does not allow. Allowed targets of "billing": none. Add the edge with addHandoff() or fix the agent.',
    );
    expect(transcript(await workflow.session('default').messages())).toEqual([
      'TextMessage(user): help',
      'ToolCallRequestEvent(triage)',
      'ToolCallExecutionEvent(triage)',
      'HandoffMessage(triage): Transferred to billing, adopting the role of billing immediately.',
    ]);
  });

  it('treats the task as the first delta and keeps condition state across pauses', async () => {
    const { builder } = desk({
      triage: [{ say: 'How can I help?' }, { say: 'Anything else?' }, { say: 'unused' }],
    });
    const workflow = builder.withTerminationCondition(new MaxMessageTermination(4)).build();
    const first = await workflow.run('hi');
    expect(first.status).toBe('awaiting_input');
    const second = await workflow.run('billing question');
    expect(second.status).toBe('terminated');
    expect(second.stopReason).toBe(
      'Maximum number of messages 4 reached, current message count: 4',
    );
    expect(second.pendingRequest).toBeUndefined();
    // The condition was reset when the run stopped: a new task starts counting again.
    const third = await workflow.run('one more');
    expect(third.status).toBe('awaiting_input');
  });

  it('stops on the task itself when the condition fires on it', async () => {
    const { log, builder } = desk({});
    const workflow = builder.withTerminationCondition(new TextMentionTermination('STOP')).build();
    const result = await workflow.run('STOP now');
    expect(result).toEqual({
      type: 'TaskResult',
      messages: [expect.objectContaining({ type: 'TextMessage', content: 'STOP now' })],
      stopReason: "Text 'STOP' mentioned",
      status: 'terminated',
      sessionId: 'default',
      usage: { promptTokens: 0, completionTokens: 0 },
    });
    expect(log).toEqual([]);
  });

  it('stops with a predicate over the whole thread', async () => {
    const { builder } = desk({ triage: [{ handoff: 'billing' }], billing: [{ say: 'done' }] });
    const seen: number[] = [];
    const workflow = builder
      .withTerminationCondition((thread) => {
        seen.push(thread.length);
        return thread.some((m) => m.type === 'HandoffMessage');
      })
      .build();
    const result = await workflow.run('hi');
    expect(result.stopReason).toBe('Functional termination condition met');
    expect(result.status).toBe('terminated');
    expect(seen).toEqual([1, 4]);
  });

  it('stops at maxTurns, and the condition reason wins on the same turn', async () => {
    const bounce = () =>
      desk({
        triage: [{ handoff: 'billing' }, { handoff: 'billing' }],
        billing: [{ handoff: 'tech' }],
        tech: [{ handoff: 'billing' }],
      });
    const a = bounce()
      .builder.addHandoff('billing', ['tech'])
      .addHandoff('tech', ['billing'])
      .withMaxTurns(3)
      .build();
    const byTurns = await a.run('loop');
    expect(byTurns.stopReason).toBe('Maximum number of turns 3 reached.');
    expect(byTurns.status).toBe('terminated');

    const b = bounce()
      .builder.addHandoff('billing', ['tech'])
      .addHandoff('tech', ['billing'])
      .withMaxTurns(3)
      .withTerminationCondition(new MaxMessageTermination(4))
      .build();
    const both = await b.run('loop');
    expect(both.stopReason).toBe('Maximum number of messages 4 reached, current message count: 4');
  });

  it('continues where it stopped when run() is called without a task', async () => {
    const { log, builder } = desk({
      triage: [{ handoff: 'billing' }],
      billing: [{ handoff: 'tech' }],
      tech: [{ say: 'fixed' }],
    });
    const workflow = builder.addHandoff('billing', ['tech']).withMaxTurns(2).build();
    const first = await workflow.run('hi');
    expect(first.stopReason).toBe('Maximum number of turns 2 reached.');
    const second = await workflow.run();
    expect(log.map((t) => t.agent)).toEqual(['triage', 'billing', 'tech']);
    expect(second.status).toBe('awaiting_input');
    expect(second.messages.map((m) => m.type)).toEqual(['TextMessage', 'UserInputRequestedEvent']);
  });

  it('cancels on abort, keeps what was produced, and redoes the interrupted turn', async () => {
    const controller = new AbortController();
    const { log, builder } = desk({
      triage: [{ handoff: 'billing' }],
      billing: [
        async (ctx) => {
          controller.abort();
          await new Promise((resolve) => setTimeout(resolve, 0));
          if (ctx.signal.aborted) throw new Error('aborted');
          return { chatMessage: textMessage({ source: 'billing', content: 'never' }) };
        },
        { say: 'Which invoice?' },
      ],
    });
    const workflow = builder.build();
    const result = await workflow.run('hi', { signal: controller.signal });
    expect(result.status).toBe('cancelled');
    expect(result.stopReason).toBeNull();
    expect(transcript(result.messages).at(-1)).toBe(
      'HandoffMessage(triage): Transferred to billing, adopting the role of billing immediately.',
    );
    expect((await workflow.session('default').info()).status).toBe('cancelled');
    const resumed = await workflow.run();
    expect(resumed.pendingRequest?.prompt).toBe('Which invoice?');
    expect(log.map((t) => t.agent)).toEqual(['triage', 'billing', 'billing']);
  });

  it('rejects a second concurrent run of one session with SessionBusyError', async () => {
    let release: () => void = () => {};
    const { builder } = desk({
      triage: [
        () =>
          new Promise((resolve) => {
            release = () =>
              resolve({ chatMessage: textMessage({ source: 'triage', content: 'ok' }) });
          }),
      ],
    });
    const workflow = builder.build();
    const first = workflow.run('one');
    await Promise.resolve();
    await expect(workflow.session('default').run('two')).rejects.toBeInstanceOf(SessionBusyError);
    await expect(workflow.run('two')).rejects.toThrow(
      'Session "default" is already running. Wait for its current run to finish or abort it before running it again.',
    );
    expect((await workflow.session('default').info()).status).toBe('running');
    release();
    expect((await first).status).toBe('awaiting_input');
  });

  it('rejects run() with the agent error and keeps the thread', async () => {
    const { builder } = desk({ triage: [() => Promise.reject(new Error('model exploded'))] });
    const workflow = builder.build();
    await expect(workflow.run('hi')).rejects.toThrow(
      'Agent "triage" failed in session "default": model exploded',
    );
    expect(transcript(await workflow.session('default').messages())).toEqual([
      'TextMessage(user): hi',
    ]);
    expect((await workflow.session('default').info()).status).toBe('idle');
  });

  it('keeps sessions isolated while they run concurrently', async () => {
    const echo = new FakeAgent(
      'triage',
      Array.from({ length: 20 }, () => async (ctx: Parameters<FakeAgent['respond']>[0]) => {
        await new Promise((resolve) => setTimeout(resolve, 1));
        const last = ctx.newMessages.at(-1);
        return {
          chatMessage: textMessage({
            source: 'triage',
            content: `echo ${last && 'content' in last ? String(last.content) : ''}`,
          }),
        };
      }),
    );
    const workflow = new HandoffBuilder({ participants: [echo] })
      .coordinator(echo)
      .withTerminationCondition(new MaxMessageTermination(3))
      .build();
    const ids = ['a', 'b', 'c', 'd'];
    const results = await Promise.all(ids.map((id) => workflow.session(id).run(`hello ${id}`)));
    expect(results.map((r) => r.pendingRequest?.prompt)).toEqual(
      ids.map((id) => `echo hello ${id}`),
    );
    const seconds = await Promise.all(ids.map((id) => workflow.session(id).run(`again ${id}`)));
    expect(seconds.map((r) => r.stopReason)).toEqual(
      ids.map(() => 'Maximum number of messages 3 reached, current message count: 3'),
    );
    for (const id of ids) {
      expect(transcript(await workflow.session(id).messages())).toEqual([
        `TextMessage(user): hello ${id}`,
        `TextMessage(triage): echo hello ${id}`,
        `UserInputRequestedEvent(triage): echo hello ${id}`,
        `TextMessage(user): again ${id}`,
      ]);
    }
  });

  it('streams every message, chunks included, and the TaskResult last', async () => {
    const { builder } = desk({
      triage: [
        (ctx) => {
          ctx.emit({
            type: 'ModelClientStreamingChunkEvent',
            id: 'c1',
            source: 'triage',
            createdAt: new Date().toISOString(),
            metadata: {},
            content: 'Hel',
          });
          ctx.emit({
            type: 'ModelClientStreamingChunkEvent',
            id: 'c2',
            source: 'triage',
            createdAt: new Date().toISOString(),
            metadata: {},
            content: 'lo',
          });
          return {
            chatMessage: textMessage({
              source: 'triage',
              content: 'Hello',
              usage: { promptTokens: 7, completionTokens: 2 },
            }),
          };
        },
      ],
    });
    const workflow = builder.build();
    const seen: (AgentMessage | TaskResult)[] = [];
    for await (const item of workflow.runStream('hi')) seen.push(item);
    expect(seen.map((m) => m.type)).toEqual([
      'TextMessage',
      'ModelClientStreamingChunkEvent',
      'ModelClientStreamingChunkEvent',
      'TextMessage',
      'UserInputRequestedEvent',
      'TaskResult',
    ]);
    const result = seen.at(-1) as TaskResult;
    expect(result.messages.map((m) => m.type)).toEqual([
      'TextMessage',
      'TextMessage',
      'UserInputRequestedEvent',
    ]);
    expect(result.usage).toEqual({ promptTokens: 7, completionTokens: 2 });
  });

  it('leaves task messages out of the result with outputTaskMessages: false', async () => {
    const { builder } = desk({ triage: [{ say: 'hello' }] });
    const result = await builder.build().run('hi', { outputTaskMessages: false });
    expect(transcript(result.messages)).toEqual([
      'TextMessage(triage): hello',
      'UserInputRequestedEvent(triage): hello',
    ]);
  });

  it('carries metadata unchanged through every hop', async () => {
    const { builder } = desk({ triage: [{ handoff: 'billing' }], billing: [{ say: 'ok' }] });
    const workflow = builder.build();
    const task = textMessage({
      source: 'user',
      content: 'hi',
      metadata: { ticket: 42, tags: ['vip'] },
    });
    await workflow.run(task);
    const restored = workflow.session('copy');
    await restored.loadState(await workflow.saveState());
    const [first] = await restored.messages();
    expect(first).toEqual(task);
  });

  it('round-trips saveState() through loadState() deep-equal', async () => {
    const { builder } = desk({
      triage: [{ handoff: 'billing' }],
      billing: [{ say: 'Which invoice?' }],
    });
    const workflow = builder.withTerminationCondition(new MaxMessageTermination(50)).build();
    await workflow.run('hi');
    const saved = await workflow.saveState();
    const other = workflow.session('other');
    await other.loadState(JSON.parse(JSON.stringify(saved)));
    expect(await other.saveState()).toEqual(saved);
    const [mine, theirs] = [await other.info(), await workflow.session('default').info()];
    expect({ ...mine, step: 0 }).toEqual({ ...theirs, step: 0 });
    // Loading is a step of its own in the session that loads.
    expect(mine.step).toBe(1);
  });

  it('refuses a saved state that is not one', async () => {
    const { builder } = desk({});
    const workflow = builder.build();
    await expect(workflow.loadState({ version: 1, thread: 'nope' })).rejects.toThrow(ConfigError);
    await expect(workflow.loadState({ version: 1, thread: 'nope' })).rejects.toThrow(
      /loadState\(\) of session "default": the state is invalid at thread: /,
    );
  });

  it('resets a session to a fresh start', async () => {
    const { log, builder } = desk({ triage: [{ say: 'one' }, { say: 'two' }] });
    const workflow = builder.build();
    await workflow.run('hi');
    await workflow.reset();
    expect(await workflow.session('default').messages()).toEqual([]);
    // A reset is a step too: the log keeps what came before it.
    expect(await workflow.session('default').info()).toEqual({ status: 'idle', step: 3 });
    await workflow.run('hello again');
    expect(log[1]?.newMessages).toEqual(['user: hello again']);
  });
});

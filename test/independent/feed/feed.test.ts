// Independent suite for API.md §22: `session.feed({ after, signal })`, written from the page alone.
// Readings where the page is open:
// - "another process" is a second workflow object on a second store object over the same files
//   (FileCheckpointStore on one directory): it shares nothing with the first but the store;
// - a feed opened while nothing runs and with no cursor ends at once (the default is the start of
//   the current run, and there is none);
// - a feed whose run is followed from another process gets no chunks (without a dispatcher there
//   is no channel for them), but every committed message and the same result.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { z } from 'zod';
import { afterAll, describe, expect, it } from 'vitest';

import {
  Agent,
  type CheckpointRecord,
  ConfigError,
  type FeedEvent,
  FileCheckpointStore,
  guardrail,
  HandoffBuilder,
  MemoryCheckpointStore,
  type CheckpointStore,
  RoundRobinGroupChat,
  ScriptedChatClient,
  type ScriptedStep,
  textMessage,
  tool,
  type ChatAgent,
} from '../../../src/index.js';

const dirs: string[] = [];
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});
const directory = () => {
  const dir = mkdtempSync(join(tmpdir(), 'baton-feed-'));
  dirs.push(dir);
  return dir;
};

/** A gate a model call waits at while it is closed. */
class Gate {
  #open = () => {};
  readonly #opened = new Promise<void>((resolve) => (this.#open = resolve));
  #reached = () => {};
  readonly reached = new Promise<void>((resolve) => (this.#reached = resolve));
  async pass(): Promise<void> {
    this.#reached();
    await this.#opened;
  }
  open(): void {
    this.#open();
  }
}

/** A streaming helper with a `read` tool: looks the order up, then streams its answer. */
function desk(store: CheckpointStore | undefined, gate?: Gate) {
  const read = tool({
    name: 'read_order',
    description: 'Reads an order.',
    parameters: z.object({ id: z.string() }),
    effect: 'read',
    execute: ({ id }) => `order ${id}: shipped`,
  });
  const helper = new Agent({
    name: 'helper',
    stream: true,
    tools: [read],
    maxToolIterations: 2,
    client: new ScriptedChatClient(async (request): Promise<ScriptedStep> => {
      const last = request.messages.at(-1);
      if (last?.role === 'tool') {
        await gate?.pass();
        return { chunks: ['Your order ', 'has shipped.'] };
      }
      return {
        content: null,
        toolCalls: [
          { id: `call-${request.messages.length}`, name: 'read_order', arguments: '{"id":"7"}' },
        ],
      };
    }),
  });
  const builder = new HandoffBuilder({ name: 'feed-desk', participants: [helper] }).coordinator(
    helper,
  );
  if (store !== undefined) builder.withCheckpointing(store);
  return builder.build();
}

async function all(feed: AsyncIterable<FeedEvent>): Promise<FeedEvent[]> {
  const events: FeedEvent[] = [];
  for await (const event of feed) events.push(event);
  return events;
}

const shape = (events: readonly FeedEvent[]) =>
  events.map((e) => `${e.cursor} ${e.type === 'result' ? 'result' : e.message.type}`);

const wire = <T>(value: T): T => JSON.parse(JSON.stringify(value)) as T;

describe('session.feed() (API.md §22)', () => {
  it('ends at once, empty, when nothing runs and nothing follows the cursor — a new session too', async () => {
    const workflow = desk(new MemoryCheckpointStore());
    expect(await all(workflow.session('never-ran').feed())).toEqual([]);
    expect(await all(workflow.session('never-ran').feed({ after: '0.0' }))).toEqual([]);
    await workflow.session('ran').run('where is my order?');
    expect(await all(workflow.session('ran').feed())).toEqual([]);
  });

  it('replays the log after "0.0": each committed message with its cursor, then the result the run returned', async () => {
    const workflow = desk(new MemoryCheckpointStore());
    const result = await workflow.session('s').run('where is my order?');
    const events = await all(workflow.session('s').feed({ after: '0.0' }));
    expect(shape(events)).toEqual([
      '1.1 TextMessage',
      '2.1 ToolCallRequestEvent',
      '2.2 ToolCallExecutionEvent',
      '2.3 TextMessage',
      '2.4 UserInputRequestedEvent',
      '2.5 result',
    ]);
    const last = events.at(-1);
    expect(last?.type === 'result' ? last.result : undefined).toEqual(result);
    // After a cursor: only what follows it.
    expect(shape(await all(workflow.session('s').feed({ after: '2.2' })))).toEqual([
      '2.3 TextMessage',
      '2.4 UserInputRequestedEvent',
      '2.5 result',
    ]);
    expect(await all(workflow.session('s').feed({ after: '2.5' }))).toEqual([]);
  });

  it('follows the live run: chunks as drafts of the step being made, then its messages and the result', async () => {
    const gate = new Gate();
    const workflow = desk(new MemoryCheckpointStore(), gate);
    const session = workflow.session('live');
    const running = session.run('where is my order?');
    await gate.reached;
    const feeding = all(session.feed());
    gate.open();
    const [result, events] = await Promise.all([running, feeding]);
    expect(shape(events)).toEqual([
      '1.1 TextMessage',
      '2.0.1 ModelClientStreamingChunkEvent',
      '2.0.2 ModelClientStreamingChunkEvent',
      '2.1 ToolCallRequestEvent',
      '2.2 ToolCallExecutionEvent',
      '2.3 TextMessage',
      '2.4 UserInputRequestedEvent',
      '2.5 result',
    ]);
    const chunks = events.flatMap((e) => (e.type === 'chunk' ? [e.message.content] : []));
    expect(chunks.join('')).toBe('Your order has shipped.');
    const answer = events.find((e) => e.cursor === '2.3');
    expect(answer?.type === 'message' ? answer.message : undefined).toMatchObject({
      content: 'Your order has shipped.',
    });
    const last = events.at(-1);
    expect(last?.type === 'result' ? last.result : undefined).toEqual(result);
  });

  it('follows a run made by another process sharing the store, to the same result', async () => {
    const dir = directory();
    const gate = new Gate();
    const here = desk(new FileCheckpointStore(dir), gate);
    const elsewhere = desk(new FileCheckpointStore(dir));
    const running = here.session('shared').run('where is my order?');
    await gate.reached;
    const feeding = all(elsewhere.session('shared').feed());
    gate.open();
    const [result, events] = await Promise.all([running, feeding]);
    expect(shape(events)).toEqual([
      '1.1 TextMessage',
      '2.1 ToolCallRequestEvent',
      '2.2 ToolCallExecutionEvent',
      '2.3 TextMessage',
      '2.4 UserInputRequestedEvent',
      '2.5 result',
    ]);
    const last = events.at(-1);
    expect(wire(last?.type === 'result' ? last.result : undefined)).toEqual(wire(result));
  });

  it('a result read back however late keeps the stop reason: maxTurns, a guardrail with its info', async () => {
    const echo = (name: string): ChatAgent => ({
      name,
      description: name,
      respond: async () => ({ chatMessage: textMessage({ source: name, content: `${name}.` }) }),
    });
    const dir = directory();
    const team = new RoundRobinGroupChat([echo('a'), echo('b')], {
      maxTurns: 1,
      checkpointStore: new FileCheckpointStore(dir),
    });
    const stopped = await team.session('turns').run('go');
    const later = new RoundRobinGroupChat([echo('a'), echo('b')], {
      maxTurns: 1,
      checkpointStore: new FileCheckpointStore(dir),
    });
    const replayed = (await all(later.session('turns').feed({ after: '0.0' }))).at(-1);
    expect(replayed?.type === 'result' ? replayed.result.stopReason : null).toBe(
      'Maximum number of turns 1 reached.',
    );
    expect(wire(replayed?.type === 'result' ? replayed.result : null)).toEqual(wire(stopped));

    const noCards = guardrail({
      name: 'no_cards',
      check: ({ text }) =>
        /\d{16}/.test(text) ? { tripwire: true, info: 'a card number' } : { tripwire: false },
    });
    const guarded = (store: CheckpointStore) => {
      const helper = new Agent({
        name: 'helper',
        client: new ScriptedChatClient([{ content: 'no' }]),
      });
      return new HandoffBuilder({ name: 'guarded', participants: [helper] })
        .coordinator(helper)
        .withGuardrails({ input: [noCards] })
        .withCheckpointing(store)
        .build();
    };
    const tripped = await guarded(new FileCheckpointStore(dir))
      .session('card')
      .run('4111111111111111');
    const read = (
      await all(guarded(new FileCheckpointStore(dir)).session('card').feed({ after: '0.0' }))
    ).at(-1);
    expect(read?.type === 'result' ? read.result.stopReason : null).toBe(
      'Guardrail "no_cards" tripped: a card number',
    );
    expect(wire(read?.type === 'result' ? read.result : null)).toEqual(wire(tripped));
  });

  it('reads logs written before steps recorded their stop reason', async () => {
    const fixture = JSON.parse(
      readFileSync(
        join(import.meta.dirname, '../../fixtures/step-records-v3-before-stop-reasons.json'),
        'utf8',
      ),
    ) as Record<string, CheckpointRecord[]>;
    const store = new MemoryCheckpointStore();
    for (const record of fixture.turns ?? []) await store.append('turns', record);
    const echo = (name: string): ChatAgent => ({
      name,
      description: name,
      respond: async () => ({ chatMessage: textMessage({ source: name, content: name }) }),
    });
    const team = new RoundRobinGroupChat([echo('a'), echo('b')], {
      maxTurns: 3,
      checkpointStore: store,
    });
    const events = await all(team.session('turns').feed({ after: '0.0' }));
    const result = events.at(-1);
    expect(result?.type).toBe('result');
    // The log says how the run ended; the reason of a maxTurns stop was not written then.
    expect(result?.type === 'result' ? result.result.status : null).toBe('terminated');
  });

  it('refuses a cursor that is not one, at once, naming `after`', () => {
    const workflow = desk(undefined);
    let thrown: unknown;
    try {
      workflow.session('x').feed({ after: 'two' });
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(ConfigError);
    expect((thrown as ConfigError).path).toBe('after');
  });

  it('ends when its signal aborts; the run goes on', async () => {
    const gate = new Gate();
    const workflow = desk(new MemoryCheckpointStore(), gate);
    const session = workflow.session('left');
    const running = session.run('where is my order?');
    await gate.reached;
    const leave = new AbortController();
    const seen: string[] = [];
    for await (const event of session.feed({ signal: leave.signal })) {
      seen.push(event.cursor);
      leave.abort();
    }
    expect(seen).toEqual(['1.1']);
    gate.open();
    expect((await running).status).toBe('awaiting_input');
  });
});

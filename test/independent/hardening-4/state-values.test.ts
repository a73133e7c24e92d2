// Issue 43, items 8, 9 and 10: what a conversation state may hold, and what a stored one that
// fails is.
// - 8: an own "__proto__" key (tool arguments are parsed JSON, which makes one) was accepted live
//   but every reload failed, and a whole-state replacement holding one came back without it. The
//   state's objects may not hold the keys "__proto__" and "constructor" (no patch could carry
//   them back): the update is refused at once, live, and the session stays loadable.
// - 9: a cyclic value in session.updateState() threw a RangeError; it is a ConfigError naming the
//   path, with nothing committed.
// - 10: a session written by this same workflow (same state schema) whose state fails the schema
//   is damage, a CheckpointError naming the step; one written under another schema is an
//   incompatible change, a ConfigError naming the field.
import { crc32 } from 'node:zlib';

import { describe, expect, it } from 'vitest';
import { z } from 'zod';

import {
  Agent,
  CheckpointError,
  type CheckpointStore,
  ConfigError,
  HandoffBuilder,
  MemoryCheckpointStore,
  ScriptedChatClient,
  scriptedText,
  scriptedToolCall,
  tool,
} from '../../../src/index.js';

const Desk = z.object({ customerId: z.string().nullable(), notes: z.unknown().optional() });
const INITIAL = { customerId: null };

/** A desk whose `note` tool stores its arguments in the state (`draft.notes = args`). */
function desk(store: CheckpointStore | undefined, args = '{"data":1}', schema: z.ZodType = Desk) {
  const note = tool({
    name: 'note',
    description: 'Notes the arguments.',
    parameters: z.object({ data: z.unknown() }),
    effect: 'read',
    execute: (given, ctx) => {
      ctx.updateState((draft) => {
        draft.notes = given.data;
      });
      return 'noted';
    },
  });
  const helper = new Agent({
    name: 'helper',
    tools: [note],
    client: new ScriptedChatClient((request) =>
      request.messages.at(-1)?.role === 'tool'
        ? scriptedText(`after: ${String(request.messages.at(-1)?.content)}`)
        : scriptedToolCall('note', args, 'call-1'),
    ),
  });
  let builder = new HandoffBuilder({
    name: 'state-values',
    participants: [helper],
    state: { schema, initial: INITIAL },
  }).coordinator(helper);
  if (store !== undefined) builder = builder.withCheckpointing(store);
  return builder.build();
}

const failure = <T>(promise: Promise<T>) =>
  promise.then(
    () => undefined,
    (error: unknown) => error,
  );

describe('a state key "__proto__" or "constructor" (item 8)', () => {
  for (const key of ['__proto__', 'constructor']) {
    it(`a tool's update holding an own "${key}" is an error result; the session reloads`, async () => {
      const store = new MemoryCheckpointStore();
      const args = `{"data": {"amount": 5, "${key}": {"admin": true}}}`;
      const result = await desk(store, args).session('s').run('note it');
      const results = result.messages.flatMap((m) =>
        m.type === 'ToolCallExecutionEvent' ? m.content : [],
      );
      expect(results).toEqual([
        {
          callId: 'call-1',
          name: 'note',
          isError: true,
          content:
            `Tool "note" failed: Tool "note": updateState(): the new state is invalid at notes.${key}: an object ` +
            `of the state may not have the key "${key}" (it would not come back from the store); ` +
            'rename it; the state is unchanged.',
        },
      ]);
      const again = desk(store).session('s');
      expect(await again.state()).toEqual(INITIAL);
      expect((await again.info()).status).toBe('awaiting_input');
    });

    it(`session.updateState() with an own "${key}", nested or whole, is a ConfigError`, async () => {
      const store = new MemoryCheckpointStore();
      const session = desk(store).session('s');
      await session.updateState((draft) => {
        draft.customerId = 'C-1';
      });
      const steps = (await session.checkpoints()).length;
      const nested = JSON.parse(`{"a": {"${key}": 1}}`) as unknown;
      const whole = JSON.parse(`{"customerId": "C-2", "${key}": {"x": 1}}`) as unknown;
      for (const [recipe, path] of [
        [
          (draft: Record<string, unknown>) => {
            draft.notes = nested;
          },
          `notes.a.${key}`,
        ],
        [() => whole, key],
      ] as const) {
        const error = await failure(session.updateState(recipe));
        expect(error).toBeInstanceOf(ConfigError);
        expect((error as ConfigError).message).toBe(
          `session("s").updateState(): the new state is invalid at ${path}: an object of the ` +
            `state may not have the key "${key}" (it would not come back from the store); ` +
            'rename it; the state is unchanged.',
        );
        expect((error as ConfigError).path).toBe(`state.${path}`);
      }
      expect(await session.checkpoints()).toHaveLength(steps);
      expect(await desk(store).session('s').state()).toEqual({ customerId: 'C-1' });
    });
  }
});

describe('a cyclic value in session.updateState() (item 9)', () => {
  for (const withStore of [false, true]) {
    it(`is a ConfigError naming the path; nothing is committed${withStore ? ' (store)' : ''}`, async () => {
      const store = withStore ? new MemoryCheckpointStore() : undefined;
      const session = desk(store).session('s');
      const loop: Record<string, unknown> = { name: 'loop', list: [1] };
      (loop.list as unknown[]).push(loop);
      const error = await failure(
        session.updateState((draft) => {
          draft.notes = { deep: loop };
        }),
      );
      expect(error).toBeInstanceOf(ConfigError);
      expect((error as ConfigError).message).toBe(
        'session("s").updateState(): the new state is invalid at notes.deep.list[1]: it refers ' +
          'back to notes.deep (a cycle), which JSON cannot hold; the state is unchanged.',
      );
      expect((error as ConfigError).path).toBe('state.notes.deep.list[1]');
      expect(await session.state()).toEqual(INITIAL);
      if (withStore) expect(await session.checkpoints()).toEqual([]);
      // A value shared (not cyclic) is fine: JSON writes it twice.
      const shared = { id: 1 };
      await session.updateState((draft) => {
        draft.notes = [shared, shared];
      });
      expect(await session.state()).toEqual({ customerId: null, notes: [{ id: 1 }, { id: 1 }] });
    });
  }
});

/** Rewrites the body of `step`'s record with `edit`, sealed again as the store's checksum wants. */
async function forge(
  store: MemoryCheckpointStore,
  id: string,
  step: number,
  edit: (body: string) => string,
) {
  const records = await store.read(id, { from: 'start' });
  const index = records.findIndex((r) => r.step === step);
  const record = records[index]!;
  const body = edit(record.data.slice(8));
  expect(body).not.toBe(record.data.slice(8));
  const sum = crc32(`${id}\n${step}\n${body}`).toString(16).padStart(8, '0');
  // The memory store keeps the records it returns: forge by deleting and writing the log again.
  await store.delete(id);
  for (const [i, r] of records.entries()) {
    const data = i === index ? sum + body : r.data;
    expect(await store.append(id, { ...r, data })).toBe(true);
  }
}

describe('a stored state that fails the schema (item 10)', () => {
  it('written by this workflow (same schema): a forged patch is a CheckpointError naming the step', async () => {
    const store = new MemoryCheckpointStore();
    const session = desk(store).session('s');
    await session.updateState((draft) => {
      draft.notes = 'first';
    });
    await session.updateState((draft) => {
      draft.customerId = 'C-1';
    });
    await session.updateState((draft) => {
      draft.notes = 'last';
    });
    await forge(store, 's', 2, (body) => body.replace('"C-1"', '42'));
    const error = await failure(desk(store).session('s').state());
    expect(error).toBeInstanceOf(CheckpointError);
    expect((error as CheckpointError).step).toBe(2);
    expect((error as CheckpointError).message).toBe(
      'Checkpoint of session "s" at step 2 cannot be read: its state patch breaks the state ' +
        'schema the session was written with, at customerId: Invalid input: expected string, ' +
        'received number. Restore the store from a backup or fork the session from an earlier ' +
        'step.',
    );
  });

  it('written by this workflow: a forged snapshot is a CheckpointError naming it', async () => {
    const store = new MemoryCheckpointStore();
    const session = desk(store).session('s');
    await session.updateState((draft) => {
      draft.customerId = 'C-1';
    });
    await forge(store, 's', 1, (body) => body.replace('"C-1"', '42'));
    const error = await failure(desk(store).session('s').state());
    expect(error).toBeInstanceOf(CheckpointError);
    expect((error as CheckpointError).message).toBe(
      'Checkpoint of session "s" at step 1 cannot be read: its state breaks the state schema ' +
        'the session was written with, at customerId: Invalid input: expected string, received ' +
        'number. Restore the store from a backup or fork the session from an earlier step.',
    );
  });

  it('written under another schema: a ConfigError naming the field', async () => {
    const store = new MemoryCheckpointStore();
    const Wider = Desk.extend({ customerId: z.union([z.string(), z.number()]).nullable() });
    const session = desk(store, undefined, Wider).session('s');
    await session.updateState((draft) => {
      draft.customerId = 42;
    });
    const error = await failure(desk(store).session('s').state());
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as ConfigError).path).toBe('state.customerId');
  });
});

// API.md §12 (last sentence) and §4, independent black-box suite: `tool()` accepts a JSON Schema
// object as `parameters`. The model receives that schema unchanged, and arguments are validated
// against it before `execute` runs, the same way as for MCP tools; a bad call is an error result
// naming the tool and `execute` never sees it.
import { describe, expect, it } from 'vitest';

import { ConfigError, scriptedText, scriptedToolCall, tool } from '../../../src/index.js';
import { INVALID_LOOKUPS } from './support/lookup-cases.js';
import { runClerk } from './support/mcp-kit.js';
import { LOOKUP_ORDER_SCHEMA, SCHEDULE_PICKUP_SCHEMA } from './support/order-tools.mjs';

const ROOM_SCHEMA = {
  type: 'object' as const,
  properties: {
    room: { type: 'string', enum: ['Ada', 'Grace'], description: 'Which meeting room.' },
    attendees: { type: 'integer', minimum: 1 },
    notes: { type: 'string' },
  },
  required: ['room', 'attendees'],
  additionalProperties: false,
};

/** A `book_room` tool with `ROOM_SCHEMA` that records what `execute` received. */
function bookRoom() {
  const received: unknown[] = [];
  const booked = tool({
    name: 'book_room',
    description: 'Books a meeting room.',
    parameters: ROOM_SCHEMA,
    execute: (args) => {
      received.push(args);
      const { room, attendees } = args as { room: string; attendees: number };
      return `Booked ${room} for ${attendees}.`;
    },
  });
  return { booked, received };
}

describe('tool() with a JSON Schema as parameters', () => {
  it('gives the model the schema unchanged', async () => {
    const { booked } = bookRoom();
    const { client } = await runClerk([booked], [scriptedText('Nothing to book.')]);
    expect(client.calls[0]?.tools).toEqual([
      { name: 'book_room', description: 'Books a meeting room.', parameters: ROOM_SCHEMA },
    ]);
  });

  it('runs execute with exactly the arguments the model sent', async () => {
    const { booked, received } = bookRoom();
    const args = { room: 'Grace', attendees: 4, notes: 'projector' };
    const { results } = await runClerk([booked], [scriptedToolCall('book_room', args, 'b1')]);
    expect(results).toEqual([
      { callId: 'b1', name: 'book_room', content: 'Booked Grace for 4.', isError: false },
    ]);
    expect(received).toEqual([args]);
  });

  it('keeps keys an open schema allows and fills in no defaults', async () => {
    const received: unknown[] = [];
    const open = tool({
      name: 'note',
      parameters: {
        type: 'object',
        properties: { text: { type: 'string' }, tone: { type: 'string', default: 'plain' } },
        required: ['text'],
      },
      execute: (args) => received.push(args),
    });
    await runClerk([open], [scriptedToolCall('note', { text: 'hi', extra: 1 }, 'n1')]);
    expect(received).toEqual([{ text: 'hi', extra: 1 }]);
  });

  it.each([
    ['a missing required field', { room: 'Ada' }, 'attendees'],
    ['a value outside the enum', { room: 'Turing', attendees: 2 }, 'room'],
    ['a string for an integer', { room: 'Ada', attendees: '2' }, 'attendees'],
    ['a number below the minimum', { room: 'Ada', attendees: 0 }, 'attendees'],
    ['a property the schema forbids', { room: 'Ada', attendees: 2, floor: 3 }, 'floor'],
  ])(
    '%s is an error result naming the tool and the field; execute never runs',
    async (_, args, field) => {
      const { booked, received } = bookRoom();
      const { results } = await runClerk([booked], [scriptedToolCall('book_room', args, 'b1')]);
      expect(results).toHaveLength(1);
      expect(results[0]).toMatchObject({ callId: 'b1', name: 'book_room', isError: true });
      expect(results[0]?.content).toContain('book_room');
      expect(results[0]?.content).toContain(field);
      expect(received).toEqual([]);
    },
  );

  it.each(INVALID_LOOKUPS)(
    'validates like an MCP tool with the same schema: %s',
    async (_, args, field) => {
      const received: unknown[] = [];
      const lookup = tool({
        name: 'lookup_order',
        description: 'Looks up one order by its id and returns its status.',
        parameters: LOOKUP_ORDER_SCHEMA,
        execute: (a) => received.push(a),
      });
      const { results } = await runClerk([lookup], [scriptedToolCall('lookup_order', args, 'l1')]);
      expect(results[0]).toMatchObject({ callId: 'l1', name: 'lookup_order', isError: true });
      expect(results[0]?.content).toContain('lookup_order');
      expect(results[0]?.content).toContain(field);
      expect(received).toEqual([]);
    },
  );

  it('accepts a draft 2020-12 schema with $defs and $ref, enforcing the referenced enum', async () => {
    const received: unknown[] = [];
    const pickup = tool({
      name: 'schedule_pickup',
      description: 'Books a courier pickup slot.',
      parameters: SCHEDULE_PICKUP_SCHEMA,
      execute: (args) => {
        received.push(args);
        return 'booked';
      },
    });
    const { results, client } = await runClerk(
      [pickup],
      [
        {
          toolCalls: [
            { id: 'ok', name: 'schedule_pickup', arguments: '{"slot":"am"}' },
            { id: 'no', name: 'schedule_pickup', arguments: '{"slot":"noon"}' },
          ],
        },
      ],
    );
    expect(client.calls[0]?.tools?.[0]?.parameters).toEqual(SCHEDULE_PICKUP_SCHEMA);
    expect(results.map((r) => [r.callId, r.isError])).toEqual([
      ['ok', false],
      ['no', true],
    ]);
    expect(results[1]?.content).toContain('slot');
    expect(received).toEqual([{ slot: 'am' }]);
  });

  // Readings of "bad input → clear error" (common rules) and STYLE.md habit 2 (options are checked
  // once, when built): a schema that cannot describe an arguments object, or is not a valid JSON
  // Schema, is refused by tool() itself with a ConfigError naming the tool. The schemas come from
  // JSON text, as hand-written schemas often do, so the types do not stop them.
  it('refuses a schema whose type is not object with a ConfigError naming the tool', () => {
    const define = () =>
      tool({ name: 'shout', parameters: JSON.parse('{"type":"string"}'), execute: () => 'HEY' });
    expect(define).toThrow(ConfigError);
    expect(define).toThrow('shout');
  });

  it('refuses a schema that is not valid JSON Schema with a ConfigError naming the tool', () => {
    const define = () =>
      tool({
        name: 'typo',
        parameters: JSON.parse('{"type":"object","properties":{"a":{"type":"strnig"}}}'),
        execute: () => 'never',
      });
    expect(define).toThrow(ConfigError);
    expect(define).toThrow('typo');
  });
});

// The tools of the "order desk" MCP servers this suite builds itself (over stdio and Streamable
// HTTP), with hand-written JSON Schemas so the suite knows exactly what the model must receive.
// Built on the SDK's low-level `Server`, which never validates arguments itself: whatever reaches
// `onCall` is what the client under test sent.
// Plain JavaScript (types in order-tools.d.mts) so that the stdio server starts with bare node.
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { CallToolRequestSchema, ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js';

/** The name the order-desk servers report in `initialize` (`serverInfo.name`). */
export const ORDER_SERVER_NAME = 'order-desk';

/** A 1×1 transparent PNG, base64. It must never reach the model as text. */
export const PNG_BASE64 =
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==';
/** A few bytes of audio, base64. */
export const WAV_BASE64 = 'UklGRiQAAABXQVZFZm10IBAAAAABAAEARKwAAIhYAQACABAAZGF0YQAAAAA=';

/** JSON Schema of `lookup_order`: a required string, an enum, a bounded integer, an array, no extras. */
export const LOOKUP_ORDER_SCHEMA = {
  type: 'object',
  properties: {
    orderId: { type: 'string', minLength: 1, description: 'The order id, such as A-100.' },
    priority: {
      type: 'string',
      enum: ['low', 'high'],
      default: 'low',
      description: 'How urgent the lookup is.',
    },
    copies: { type: 'integer', minimum: 1, maximum: 5 },
    tags: { type: 'array', items: { type: 'string' }, maxItems: 2 },
  },
  required: ['orderId'],
  additionalProperties: false,
};

/** JSON Schema of `schedule_pickup`: draft 2020-12 with `$defs` and `$ref`, as MCP's default dialect. */
export const SCHEDULE_PICKUP_SCHEMA = {
  $schema: 'https://json-schema.org/draft/2020-12/schema',
  type: 'object',
  $defs: { slot: { type: 'string', enum: ['am', 'pm'] } },
  properties: { slot: { $ref: '#/$defs/slot' }, day: { type: 'string', format: 'date' } },
  required: ['slot'],
};

const EMPTY = { type: 'object', properties: {} };
const ORDER_ID = {
  type: 'object',
  properties: { orderId: { type: 'string' } },
  required: ['orderId'],
};

/** Every tool, in the order the servers list them. */
export const ORDER_TOOLS = [
  {
    name: 'lookup_order',
    title: 'Look up an order',
    description: 'Looks up one order by its id and returns its status.',
    inputSchema: LOOKUP_ORDER_SCHEMA,
    annotations: { readOnlyHint: true },
  },
  {
    name: 'schedule_pickup',
    description: 'Books a courier pickup slot.',
    inputSchema: SCHEDULE_PICKUP_SCHEMA,
  },
  { name: 'order_chart', description: 'Draws the order history as a PNG.', inputSchema: EMPTY },
  {
    name: 'chart_with_caption',
    description: 'A caption, then the chart.',
    inputSchema: EMPTY,
  },
  { name: 'two_lines', description: 'Answers with two text blocks.', inputSchema: EMPTY },
  { name: 'voice_note', description: 'Answers with an audio clip.', inputSchema: EMPTY },
  {
    name: 'cancel_order',
    description: 'Cancels an order that has not shipped.',
    inputSchema: ORDER_ID,
  },
  {
    name: 'explode',
    description: 'Fails inside the server (a JSON-RPC error).',
    inputSchema: EMPTY,
  },
  { name: 'crash_server', description: 'Kills the server mid-call.', inputSchema: EMPTY },
  {
    name: 'wait_for_release',
    description: 'Answers when the test releases it.',
    inputSchema: EMPTY,
  },
];

/**
 * A low-level SDK server listing `ORDER_TOOLS` (in pages of `options.pageSize`) and answering them.
 * `hooks.onCall` sees every `tools/call` first; `hooks.release` is what `wait_for_release` waits
 * for (forever when absent); `hooks.crash` is what `crash_server` does; `hooks.beforeAnswer`
 * runs before each answer (to talk to the client first).
 */
export function orderServer(hooks, options = {}) {
  const { name = ORDER_SERVER_NAME, pageSize = ORDER_TOOLS.length } = options;
  const server = new Server(
    { name, version: '1.0.0' },
    { capabilities: { tools: {}, logging: {} } },
  );
  server.setRequestHandler(ListToolsRequestSchema, (request) => {
    const start = Number(request.params?.cursor ?? 0);
    const end = start + pageSize;
    const page = ORDER_TOOLS.slice(start, end);
    return end < ORDER_TOOLS.length ? { tools: page, nextCursor: String(end) } : { tools: page };
  });
  server.setRequestHandler(CallToolRequestSchema, async (request, extra) => {
    const { name: tool, arguments: args } = request.params;
    hooks.onCall({ name: tool, arguments: args });
    await hooks.beforeAnswer?.(server);
    return answer(tool, args ?? {}, hooks, extra.signal);
  });
  return server;
}

const text = (value) => ({ content: [{ type: 'text', text: value }] });

async function answer(tool, args, hooks, signal) {
  switch (tool) {
    case 'lookup_order': {
      const tags = Array.isArray(args.tags) ? ` [${args.tags.join(', ')}]` : '';
      return text(
        `Order ${String(args.orderId)} is shipped (priority ${String(args.priority ?? 'low')}, ` +
          `copies ${String(args.copies ?? 1)})${tags}.`,
      );
    }
    case 'schedule_pickup':
      return text(`Pickup booked: ${String(args.slot)}.`);
    case 'order_chart':
      return { content: [{ type: 'image', data: PNG_BASE64, mimeType: 'image/png' }] };
    case 'chart_with_caption':
      return {
        content: [
          { type: 'text', text: 'Orders per day:' },
          { type: 'image', data: PNG_BASE64, mimeType: 'image/png' },
        ],
      };
    case 'two_lines':
      return {
        content: [
          { type: 'text', text: 'First line.' },
          { type: 'text', text: 'Second line.' },
        ],
      };
    case 'voice_note':
      return { content: [{ type: 'audio', data: WAV_BASE64, mimeType: 'audio/wav' }] };
    case 'cancel_order':
      return {
        content: [
          {
            type: 'text',
            text: `Order ${String(args.orderId)} has shipped; it cannot be cancelled.`,
          },
        ],
        isError: true,
      };
    case 'explode':
      throw new Error('the order database is on fire');
    case 'crash_server':
      hooks.crash?.();
      throw new Error('this server cannot crash on purpose');
    case 'wait_for_release':
      return text(await (hooks.release?.(signal) ?? new Promise(() => {})));
    default:
      throw new Error(`no tool ${tool}`);
  }
}

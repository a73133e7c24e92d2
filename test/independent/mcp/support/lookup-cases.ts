// Arguments that break `LOOKUP_ORDER_SCHEMA` (order-tools.ts), shared by the MCP suite and the
// suite of `tool()` with a JSON Schema, which must validate the same way. Each case: a title, the
// arguments, and the field the error message must name so that the model can fix its call.
export const INVALID_LOOKUPS: [title: string, args: unknown, field: string][] = [
  ['a missing required field', { priority: 'low' }, 'orderId'],
  ['a wrong type', { orderId: 42 }, 'orderId'],
  ['a value outside the enum', { orderId: 'A-1', priority: 'urgent' }, 'priority'],
  ['a fraction for an integer', { orderId: 'A-1', copies: 2.5 }, 'copies'],
  ['a numeric string for an integer (no coercion)', { orderId: 'A-1', copies: '2' }, 'copies'],
  ['a number above the maximum', { orderId: 'A-1', copies: 9 }, 'copies'],
  ['an empty string below minLength', { orderId: '' }, 'orderId'],
  ['too many array items', { orderId: 'A-1', tags: ['a', 'b', 'c'] }, 'tags'],
  ['a wrong array item type', { orderId: 'A-1', tags: [7] }, 'tags'],
  // additionalProperties: false. The message must name the stray key: "like zod arguments"
  // (zod says `Unrecognized key: "note"`), and a model cannot fix a key it is not told about.
  ['a property the schema forbids', { orderId: 'A-1', note: 'rush' }, 'note'],
];

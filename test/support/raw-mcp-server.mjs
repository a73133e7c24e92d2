// A hand-written MCP server over stdio (JSON-RPC lines, no SDK) for tests of what a hostile or
// careless server may send: the SDK's own server would refuse to send some of it. Started as
// `process.execPath raw-mcp-server.mjs`. Its tools:
// - `echo {text}`: the text back;
// - `big_reply {megabytes}`: one text block of that many MiB of "x", in a single line;
// - `strict_word {word}`: "ok <word>", with a schema whose `pattern` is `^(a+)+$` (catastrophic
//   backtracking for a backtracking engine on 'aaaa…a!');
// - `proto_key {"__proto__"}`: the arguments it received, as JSON; the schema's one property is
//   named `__proto__`, and it is required;
// - `odd_blocks`: a text block, a block of a type MCP does not define, and an image;
// - `shaped_word {word}`: structured content `{word}`, with an output schema whose pattern is
//   `^(a+)+$`.
// Annotations (for the effects of API.md §17): `echo` readOnlyHint, `odd_blocks` idempotentHint,
// `big_reply` both (read wins), the others none.
import { createInterface } from 'node:readline';

const tools = JSON.parse(`[
  {"name": "echo", "inputSchema": {"type": "object", "properties": {"text": {"type": "string"}},
   "required": ["text"]}, "annotations": {"readOnlyHint": true}},
  {"name": "big_reply", "inputSchema": {"type": "object",
   "properties": {"megabytes": {"type": "number"}}, "required": ["megabytes"]},
   "annotations": {"readOnlyHint": true, "idempotentHint": true}},
  {"name": "strict_word", "inputSchema": {"type": "object",
   "properties": {"word": {"type": "string", "pattern": "^(a+)+$"}}, "required": ["word"]}},
  {"name": "proto_key", "inputSchema": {"type": "object",
   "properties": {"__proto__": {"type": "string"}}, "required": ["__proto__"],
   "additionalProperties": false}},
  {"name": "odd_blocks", "inputSchema": {"type": "object", "properties": {}},
   "annotations": {"idempotentHint": true}},
  {"name": "shaped_word", "inputSchema": {"type": "object",
   "properties": {"word": {"type": "string"}}, "required": ["word"]},
   "outputSchema": {"type": "object",
   "properties": {"word": {"type": "string", "pattern": "^(a+)+$"}}, "required": ["word"]}}
]`);

function answer(name, args) {
  switch (name) {
    case 'echo':
      return { content: [{ type: 'text', text: String(args.text) }] };
    case 'big_reply':
      return {
        content: [{ type: 'text', text: 'x'.repeat(Math.round(args.megabytes * 2 ** 20)) }],
      };
    case 'strict_word':
      return { content: [{ type: 'text', text: `ok ${args.word}` }] };
    case 'proto_key':
      return { content: [{ type: 'text', text: JSON.stringify(args) }] };
    case 'odd_blocks':
      return {
        content: [
          { type: 'text', text: 'before' },
          { type: 'hologram', frames: 3, data: 'AAAA' },
          { type: 'image', mimeType: 'image/png', data: 'AAAA' },
        ],
      };
    case 'shaped_word':
      return {
        content: [{ type: 'text', text: args.word }],
        structuredContent: { word: args.word },
      };
    default:
      return { content: [{ type: 'text', text: `no tool ${name}` }], isError: true };
  }
}

function result(message) {
  switch (message.method) {
    case 'initialize':
      return {
        protocolVersion: message.params.protocolVersion,
        capabilities: { tools: {} },
        serverInfo: { name: 'raw-test', version: '1.0.0' },
      };
    case 'tools/list':
      return { tools };
    case 'tools/call':
      return answer(message.params.name, message.params.arguments ?? {});
    default:
      return {};
  }
}

const lines = createInterface({ input: process.stdin });
lines.on('line', (line) => {
  const message = JSON.parse(line);
  if (message.id === undefined || message.method === undefined) return;
  process.stdout.write(
    `${JSON.stringify({ jsonrpc: '2.0', id: message.id, result: result(message) })}\n`,
  );
});

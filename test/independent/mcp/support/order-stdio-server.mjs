// The order-desk MCP server over stdio, run by the tests as
// `process.execPath order-stdio-server.mjs --log <file> [flags]` (plain JavaScript: bare node starts it).
// It appends one JSON line per event to the log: `{"event":"start","pid":…}` once, then
// `{"event":"call","name":…,"arguments":…}` for every `tools/call` it receives.
// Flags: `--exit-after-first` (exit once the first call's answer is written), `--stubborn` (ignore
// SIGTERM and the end of stdin, so only SIGKILL ends it), `--name <n>` (its `serverInfo.name`),
// `--page-size <n>` (list the tools in pages of n), `--stderr-kb <n>` (write n kB to stderr
// before answering each call), `--chatty` (print a line that is not JSON-RPC to stdout at start,
// and one in the same write as each answer, as careless servers do), `--blank-line` (an empty
// line in the same write as each answer, as a stray console.log() makes), `--talk-first` (before each
// answer, send the client a log notification and a ping request, and wait for the pong).
import { appendFileSync } from 'node:fs';
import { parseArgs } from 'node:util';

import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';

import { ORDER_SERVER_NAME, orderServer } from './order-tools.mjs';

const { values } = parseArgs({
  options: {
    log: { type: 'string' },
    name: { type: 'string', default: ORDER_SERVER_NAME },
    'exit-after-first': { type: 'boolean', default: false },
    stubborn: { type: 'boolean', default: false },
    'page-size': { type: 'string' },
    'stderr-kb': { type: 'string', default: '0' },
    chatty: { type: 'boolean', default: false },
    'talk-first': { type: 'boolean', default: false },
    'blank-line': { type: 'boolean', default: false },
  },
});
const log = values.log;
if (log === undefined) throw new Error('order-stdio-server needs --log <file>');
const record = (entry) => appendFileSync(log, `${JSON.stringify(entry)}\n`);

if (values.stubborn) {
  process.on('SIGTERM', () => record({ event: 'sigterm-ignored' }));
  setInterval(() => {}, 60_000); // keeps running after stdin ends
}

const stderrBytes = Number(values['stderr-kb']) * 1024;
const server = orderServer(
  {
    onCall: (call) => {
      record({ event: 'call', ...call });
      if (stderrBytes > 0) process.stderr.write(`${'.'.repeat(stderrBytes - 1)}\n`);
    },
    crash: () => process.exit(3),
    ...(values['talk-first']
      ? {
          beforeAnswer: async (server) => {
            await server.notification({
              method: 'notifications/message',
              params: { level: 'info', data: 'looking it up' },
            });
            await server.ping();
          },
        }
      : {}),
  },
  {
    name: values.name,
    ...(values['page-size'] ? { pageSize: Number(values['page-size']) } : {}),
  },
);
if (values.chatty) process.stdout.write('order-desk: starting up\n');
const transport = new StdioServerTransport();
await server.connect(transport);

// Note the id of each tools/call: --chatty prefixes its answer with a junk line, and
// --exit-after-first exits once the first answer is out.
const callIds = new Set();
const onmessage = transport.onmessage;
transport.onmessage = (message) => {
  if ('method' in message && message.method === 'tools/call' && 'id' in message) {
    callIds.add(message.id);
  }
  onmessage?.(message);
};
const send = transport.send.bind(transport);
transport.send = async (message) => {
  if (values.chatty && 'result' in message && callIds.has(message.id)) {
    process.stdout.write(`order-desk: answering\n${JSON.stringify(message)}\n`);
  } else if (values['blank-line'] && 'result' in message && callIds.has(message.id)) {
    process.stdout.write(`\n${JSON.stringify(message)}\n`);
  } else {
    await send(message);
  }
  if (values['exit-after-first'] && 'result' in message && callIds.has(message.id)) {
    process.stdout.write('', () => process.exit(0));
  }
};
record({ event: 'start', pid: process.pid });

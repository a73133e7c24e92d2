// What one relay turn's HTTP exchange costs with nothing of Baton in it: the floor under the added
// cost that bench/serve-overhead.ts measures. The same client as there (node:http, one kept-alive
// socket, in the same process) POSTs a small JSON body and reads an SSE answer of a relay turn's
// size (about 7 kB, sent in one chunk once the event loop has turned, as `serve()` sends a burst of
// frames) from two servers on 127.0.0.1: bare node:http, and a bare Hono app on @hono/node-server
// (the stack `serve()` runs on) that reads the body with `arrayBuffer()` and answers a
// ReadableStream. The two are called alternately; p50 and p99 of each, after a warm-up.
//
// Run: node --import tsx bench/serve-floor.ts [requests]
import { createAdaptorServer } from '@hono/node-server';
import { Hono } from 'hono';
import { Agent as HttpAgent, createServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

import { percentile } from './relay.js';

const SSE = { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-cache' };
const answer = `id: 1.1\nevent: TextMessage\ndata: ${JSON.stringify({ text: 'x'.repeat(7000) })}\n\n`;
const bytes = new TextEncoder().encode(answer);
const turn = () => new Promise((resolve) => setImmediate(resolve));

const bare = createServer((req, res) => {
  const parts: Buffer[] = [];
  req.on('data', (chunk: Buffer) => parts.push(chunk));
  req.on('end', () => {
    JSON.parse(Buffer.concat(parts).toString('utf8'));
    res.writeHead(200, SSE);
    res.flushHeaders();
    void turn().then(() => res.end(answer));
  });
});

const app = new Hono();
app.post('/sessions/:id/runs', async (c) => {
  JSON.parse(new TextDecoder().decode(await c.req.raw.arrayBuffer()));
  let sent = false;
  const body = new ReadableStream<Uint8Array>({
    async pull(controller) {
      if (sent) return controller.close();
      await turn();
      sent = true;
      controller.enqueue(bytes);
    },
  });
  return new Response(body, { headers: SSE });
});
const hono = createAdaptorServer({ fetch: app.fetch }) as Server;

async function portOf(server: Server): Promise<number> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return (server.address() as AddressInfo).port;
}

const agent = new HttpAgent({ keepAlive: true, maxSockets: 1 });
const headers = {
  authorization: 'Bearer bench-token',
  'content-type': 'application/json',
  accept: 'text/event-stream',
};

function post(port: number): Promise<void> {
  return new Promise((resolve, reject) => {
    const req = request(
      { host: '127.0.0.1', port, path: '/sessions/s/runs', method: 'POST', agent, headers },
      (response) => {
        let text = '';
        response.setEncoding('utf8');
        response.on('data', (chunk: string) => (text += chunk));
        response.on('end', () => (text === answer ? resolve() : reject(new Error('bad answer'))));
        response.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(JSON.stringify({ input: 'My invoice is wrong.' }));
  });
}

const requests = Number(process.argv[2] ?? 5000);
const servers = { nodeHttp: await portOf(bare), honoNodeServer: await portOf(hono) };
const times: Record<keyof typeof servers, number[]> = { nodeHttp: [], honoNodeServer: [] };
for (let i = 0; i < requests; i++) {
  for (const name of ['nodeHttp', 'honoNodeServer'] as const) {
    const start = process.hrtime.bigint();
    await post(servers[name]);
    if (i >= requests / 5) times[name].push(Number(process.hrtime.bigint() - start) / 1000);
  }
}
agent.destroy();
await Promise.all([bare, hono].map((s) => new Promise((resolve) => s.close(resolve))));
const figures = (xs: number[]) => {
  const sorted = [...xs].sort((a, b) => a - b);
  return { p50Us: percentile(sorted, 0.5), p99Us: percentile(sorted, 0.99) };
};
console.log(
  JSON.stringify({
    bench: 'serve-floor',
    requests: times.nodeHttp.length,
    nodeHttp: figures(times.nodeHttp),
    honoNodeServer: figures(times.honoNodeServer),
  }),
);

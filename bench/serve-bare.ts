// The floor under `serve()` (issue 29): a bare node:http handler that runs a relay turn with
// `runStream()` and writes each message as an SSE frame as it comes, with nothing of serving in it
// (no authentication, routing, owner check, run hub, Hono or web streams). `POST /sessions/:id/runs`
// runs a turn; any other POST answers 201 (the session is made by its first run).
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

import type { relayDesk } from './relay-desk.js';

/**
 * The floor under `serve()`: node:http, the turn's messages written as SSE frames as they come;
 * `batched`: the frames ready at once written together in the event loop's check phase (after the
 * run has sent its next store call), as `serve()` does.
 */
export async function listenBare(
  workflow: ReturnType<typeof relayDesk>['workflow'],
  batched = false,
) {
  const server = createServer((req, res) => {
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (chunk: string) => (body += chunk));
    req.on('end', () => {
      void (async () => {
        const runs = /^\/sessions\/([^/]+)\/runs$/.exec(req.url ?? '');
        if (runs === null) {
          res.writeHead(201, { 'content-type': 'application/json' }).end('{}');
          return;
        }
        const { input } = JSON.parse(body) as { input: string };
        res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
        let pending = '';
        const flush = () => {
          res.write(pending);
          pending = '';
        };
        for await (const item of workflow.session(runs[1] as string).runStream(input)) {
          const event = 'type' in item ? 'message' : 'result';
          const frame = `event: ${event}\ndata: ${JSON.stringify(item)}\n\n`;
          if (!batched) res.write(frame);
          else if ((pending += frame) === frame) setImmediate(flush);
        }
        if (pending !== '') flush();
        res.end();
      })();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    async close() {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

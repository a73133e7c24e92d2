// `baton serve <module> --queue <url>` (API.md §25): a server from the CLI alone that queues the
// runs for `baton worker` processes, on pg-boss and on BullMQ.
import { randomBytes } from 'node:crypto';

import { afterAll, describe, expect, it } from 'vitest';

import { type Engine, PG_URL, REDIS_URL } from '../support/queue-desk.js';
import { type Child, startChild, stopChild } from '../support/queue-processes.js';

const TOKEN = 'serve-queue-token';
const HEADERS = { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' };
const ENGINES = (process.env.WORKERS_ENGINES ?? 'pg,redis').split(',') as Engine[];
const QUEUE_URL = { pg: PG_URL, redis: REDIS_URL };

describe.each(ENGINES)('baton serve --queue on %s', (engine) => {
  const children: Child[] = [];
  afterAll(async () => {
    await Promise.all(children.map((c) => stopChild(c)));
  }, 60_000);

  it('serves the module with its runs made by a baton worker', async () => {
    const suffix = randomBytes(4).toString('hex');
    const env = {
      QD_ENGINE: engine,
      QD_STORE: `sq${suffix}`,
      QD_NAME: `desk-${suffix}`,
      BATON_TOKEN: TOKEN,
    };
    const module = 'test/support/queue-desk-module.ts';
    const queue = ['--queue', QUEUE_URL[engine]];
    const worker = startChild(
      'src/cli/main.ts',
      ['worker', module, ...queue],
      /(Baton worker): /,
      env,
    );
    const server = startChild(
      'src/cli/main.ts',
      ['serve', module, '--port', '0', ...queue],
      /Baton serve: (\S+) \(runs queued on /,
      env,
    );
    children.push(worker, server);
    const [, url] = await Promise.all([worker.printed, server.printed]);
    expect(server.output()).toContain(`(runs queued on ${engine === 'pg' ? 'pg-boss' : 'bullmq'})`);
    const created = await fetch(`${url}/sessions`, {
      method: 'POST',
      headers: HEADERS,
      body: '{}',
    });
    const { id } = (await created.json()) as { id: string };
    const answer = await fetch(`${url}/sessions/${id}/runs`, {
      method: 'POST',
      headers: HEADERS,
      body: JSON.stringify({ input: 'hello' }),
    });
    expect(answer.status).toBe(200);
    const result = (await answer.json()) as { messages: { content: string }[] };
    expect(result.messages.at(-1)?.content).toBe('reply 1: hello');
  }, 60_000);
});

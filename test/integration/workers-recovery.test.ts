// API.md §16, "a worker that dies mid-run": two worker processes with the default settings; the
// one running a turn (inside its `wait` tool call) is SIGKILLed, and the other resumes the session:
// the POST answers with the turn's result, and the transcript holds each message once. On pg-boss
// the job is handed over by the live worker (the dead one's heartbeat stopped and nobody holds the
// session's lease), not only by pg-boss's own heartbeat check: with that set to an hour, the
// session is resumed all the same. A live worker's turn that outlasts the hand-over time is not
// handed over. No timed assertion: resumed and correct, not how fast.
import { randomBytes } from 'node:crypto';

import { afterAll, describe, expect, it } from 'vitest';

import { PgBossDispatcher, type Dispatcher, serve } from '../../src/index.js';
import { dispatcherOf, type Engine, PG_URL, queueDesk, storeOf } from '../support/queue-desk.js';
import { type Child, startChild, stopChild } from '../support/queue-processes.js';

const HEADERS = { authorization: 'Bearer workers-token', 'content-type': 'application/json' };
const ENGINES = (process.env.WORKERS_ENGINES ?? 'pg,redis').split(',') as Engine[];

const children = new Set<Child>();
afterAll(async () => {
  await Promise.all([...children].map((c) => stopChild(c, 2000)));
}, 60_000);

/** What the transcript of the turn `slow turn` is, by kind and text. */
const TRANSCRIPT = [
  'TextMessage:user:slow turn',
  'ToolCallRequestEvent:clerk:',
  'ToolCallExecutionEvent:clerk:',
  'TextMessage:clerk:reply 1: slow turn',
  'UserInputRequestedEvent:clerk:',
];

/**
 * Two worker processes (`env` added to theirs) and a server in this process; a slow turn is posted
 * and the worker that runs it is SIGKILLed in its tool call (or left alone when `kill` is false).
 */
async function slowTurn(
  engine: Engine,
  env: Record<string, string>,
  kill: boolean,
  dispatcherOfServer?: (queue: string) => Dispatcher,
) {
  const suffix = randomBytes(4).toString('hex');
  const name = `wr${suffix}`;
  const workflow = `recover-${suffix}`;
  const queue = `baton.${workflow}`;
  const store = storeOf(engine, name);
  const dispatcher = dispatcherOfServer?.(queue) ?? dispatcherOf(engine, queue);
  const desk = queueDesk(store, workflow);
  const handler = serve(desk, { token: 'workers-token', dispatcher });
  const worker = () => {
    const child = startChild('test/support/queue-desk.ts', [engine, name, queue, '10'], /(ready)/, {
      QD_DEFAULTS: '1',
      QD_TRACE: '1',
      ...env,
    });
    children.add(child);
    return child;
  };
  const workers = [worker(), worker()];
  try {
    await Promise.all(workers.map((w) => w.printed));
    const post = (path: string, body: unknown) =>
      handler.fetch(
        new Request(`http://test${path}`, {
          method: 'POST',
          headers: HEADERS,
          body: JSON.stringify(body),
        }),
      );
    const { id } = (await (await post('/sessions', {})).json()) as { id: string };
    const answer = post(`/sessions/${id}/runs`, { input: 'slow turn' });
    const waits = (child: Child) =>
      child
        .output()
        .split('\n')
        .filter((l) => l === 'waiting').length;
    let victim: Child | undefined;
    while ((victim = workers.find((w) => waits(w) > 0)) === undefined) {
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    const other = workers.find((w) => w !== victim)!;
    if (kill) {
      victim.process.kill('SIGKILL');
      expect(await victim.exited).toBe('SIGKILL');
    }
    const response = await answer;
    const result = (await response.json()) as { status: string; messages: unknown[] };
    const messages = await desk.session(id).messages();
    return {
      status: response.status,
      result: result.status,
      transcript: messages.map((m) => {
        const text = m.type === 'TextMessage' ? String(m.content) : '';
        return `${m.type}:${m.source}:${text}`;
      }),
      // The tool calls each worker started ("waiting" is printed as the tool starts).
      calls: { victim: waits(victim), other: waits(other) },
    };
  } finally {
    await Promise.all(workers.map((w) => stopChild(w, 2000)));
    await handler.close();
    await dispatcher.close();
    await store.close();
  }
}

describe.each(ENGINES)('a SIGKILLed worker on %s', (engine) => {
  it('default settings: another worker resumes the session; each message once', async () => {
    const run = await slowTurn(engine, {}, true);
    expect(run).toEqual({
      status: 200,
      result: 'awaiting_input',
      transcript: TRANSCRIPT,
      // The killed worker's tool call was never committed: the other worker makes it again.
      calls: { victim: 1, other: 1 },
    });
  }, 90_000);
});

describe.skipIf(!ENGINES.includes('pg'))('pg-boss hand-over by a live worker', () => {
  it("resumes a SIGKILLed worker's session with pg-boss's own heartbeat check an hour away", async () => {
    const run = await slowTurn(
      'pg',
      { QD_PG_HEARTBEAT: '3600' },
      true,
      (queue) =>
        new PgBossDispatcher({ connectionString: PG_URL }, { queue, heartbeatSeconds: 3600 }),
    );
    expect(run).toEqual({
      status: 200,
      result: 'awaiting_input',
      transcript: TRANSCRIPT,
      calls: { victim: 1, other: 1 },
    });
  }, 90_000);

  it('leaves a live worker its turn when the turn outlasts the hand-over time', async () => {
    // A tool call of 9 s: more than twice the time after which a silent worker's job is taken.
    const run = await slowTurn('pg', { QD_SLOW_MS: '9000' }, false);
    expect(run.status).toBe(200);
    expect(run.result).toBe('awaiting_input');
    expect(run.transcript).toEqual(TRANSCRIPT);
    expect(run.calls.victim + run.calls.other).toBe(1);
  }, 90_000);
});

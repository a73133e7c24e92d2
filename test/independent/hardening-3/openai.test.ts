// Hostile model-client tests: credentials inside baseURL; a model refusal.
import { createServer } from 'node:net';
import { inspect } from 'node:util';

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';

import {
  Agent,
  ConfigError,
  MemoryCheckpointStore,
  OpenAIChatClient,
  RoundRobinGroupChat,
  TextMessageTermination,
} from '../../../src/index.js';
import {
  type OpenAICompatibleServer,
  startOpenAICompatibleServer,
} from '../../support/openai-compatible-server.js';

const PASS = 's3cretPASSword';
const KEY = 'k3yQUERYsecret';

async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as { port: number };
  await new Promise<void>((r) => server.close(() => r()));
  return port;
}

/** Every text an error carries: message, stack, and the same of each `cause`, recursively. */
function errorText(error: unknown, depth = 0): string {
  if (depth > 8 || error === null || error === undefined) return '';
  if (typeof error !== 'object') return String(error);
  const e = error as { message?: unknown; stack?: unknown; cause?: unknown; errors?: unknown };
  let text = `${String(e.message)}\n${String(e.stack)}\n`;
  text += errorText(e.cause, depth + 1);
  if (Array.isArray(e.errors)) for (const inner of e.errors) text += errorText(inner, depth + 1);
  return text;
}

let server: OpenAICompatibleServer;
beforeAll(async () => {
  server = await startOpenAICompatibleServer();
});
afterAll(() => server.close());

describe('baseURL holding a secret', () => {
  const urls = async () => {
    const port = await closedPort();
    const live = new URL(server.url);
    return [
      ['userinfo, nothing listening', `http://user:${PASS}@127.0.0.1:${port}/v1`],
      ['query key, nothing listening', `http://127.0.0.1:${port}/v1?key=${KEY}`],
      ['userinfo, server answers 500', `http://user:${PASS}@${live.host}${live.pathname}`],
      ['query key, server answers 500', `http://${live.host}${live.pathname}?key=${KEY}`],
    ] as const;
  };

  it('no error message (nor stack, nor cause) contains the secret', async () => {
    for (const [what, baseURL] of await urls()) {
      server.reply({ status: 500, message: 'internal' });
      let client: OpenAIChatClient;
      try {
        client = new OpenAIChatClient({
          model: 'gpt-test',
          apiKey: 'sk-test',
          baseURL,
          maxRetries: 0,
        });
      } catch (refused) {
        // Refusing such a baseURL at once is fine, as long as the refusal keeps the secret out.
        expect(errorText(refused), what).not.toContain(PASS);
        expect(errorText(refused), what).not.toContain(KEY);
        continue;
      }
      const agent = new Agent({ name: 'bot', client });
      const store = new MemoryCheckpointStore();
      const team = new RoundRobinGroupChat([agent], {
        terminationCondition: new TextMessageTermination('bot'),
        checkpointStore: store,
      });
      const error = await team.run('hello').catch((e: unknown) => e);
      expect(error, what).toBeInstanceOf(Error);
      const text = errorText(error);
      expect(text, what).not.toContain(PASS);
      expect(text, what).not.toContain(KEY);
      const direct = await client
        .create({ messages: [{ role: 'user', content: 'hi' }] })
        .catch((e: unknown) => e);
      expect(direct, what).toBeInstanceOf(Error);
      expect(errorText(direct), what).not.toContain(PASS);
      expect(errorText(direct), what).not.toContain(KEY);
      const saved = JSON.stringify(await team.saveState());
      expect(saved).not.toContain(PASS);
      expect(saved).not.toContain(KEY);
    }
  }, 60_000);

  it('a baseURL that does not parse: the error does not echo the secret', () => {
    let error: unknown;
    try {
      new OpenAIChatClient({ model: 'm', apiKey: 'sk', baseURL: `http://user:${PASS}@[::1` });
    } catch (e) {
      error = e;
    }
    if (error !== undefined) expect(errorText(error)).not.toContain(PASS);
  });
});

describe('odd baseURL spellings holding a secret', () => {
  const forms = [
    `http://:${PASS}@127.0.0.1:1/v1`,
    `HTTP://u:${PASS}@127.0.0.1:1/v1`,
    `http://u%40x:${PASS}@127.0.0.1:1/v1`,
    `http://u:${PASS}@[::1`,
    `http://u:${PASS}@127.0.0.1:1:2/v1`,
    `http://u:${PASS}@exa mple.com/v1`,
    ` http://127.0.0.1:1/v1?key=${KEY}`,
    `http://127.0.0.1:1/v1/?key=${KEY}&x=1#`,
    `http://127.0.0.1:999999/v1?key=${KEY}`,
    `127.0.0.1:1/v1?key=${KEY}`,
    `http://127.0.0.1:1/v1#key=${KEY}`,
  ];
  it('neither construction nor a request error names the secret', async () => {
    for (const baseURL of forms) {
      let text: string;
      try {
        const client = new OpenAIChatClient({ model: 'm', apiKey: 'sk', baseURL, maxRetries: 0 });
        text = errorText(
          await client
            .create({ messages: [{ role: 'user', content: 'hi' }] })
            .catch((e: unknown) => e),
        );
      } catch (e) {
        text = errorText(e);
      }
      expect(text, baseURL).not.toContain(PASS);
      expect(text, baseURL).not.toContain(KEY);
    }
  }, 60_000);
});

describe('OPENAI_BASE_URL holding a secret', () => {
  it('construction or the request error does not name it', async () => {
    const saved = process.env.OPENAI_BASE_URL;
    try {
      for (const value of [`http://u:${PASS}@127.0.0.1:1/v1`, `http://127.0.0.1:1/v1?key=${KEY}`]) {
        process.env.OPENAI_BASE_URL = value;
        let text: string;
        try {
          const client = new OpenAIChatClient({ model: 'm', apiKey: 'sk', maxRetries: 0 });
          text = errorText(
            await client
              .create({ messages: [{ role: 'user', content: 'hi' }] })
              .catch((e: unknown) => e),
          );
        } catch (e) {
          text = errorText(e);
        }
        expect(text, value).not.toContain(PASS);
        expect(text, value).not.toContain(KEY);
      }
    } finally {
      if (saved === undefined) delete process.env.OPENAI_BASE_URL;
      else process.env.OPENAI_BASE_URL = saved;
    }
  });
});

describe('an unparseable baseURL with a password', () => {
  // Found: construction accepted `http://u:<pass>@[::1`, and the first request failed with Node's
  // `TypeError: Invalid URL`, whose property `input` (wrapped as the run error's `cause`) held the
  // password. Now refused at construction, redacted.
  it('is a ConfigError at construction, and nothing in it holds the password', () => {
    let error: unknown;
    try {
      new OpenAIChatClient({ model: 'm', apiKey: 'sk', baseURL: `http://u:${PASS}@[::1` });
    } catch (thrown) {
      error = thrown;
    }
    expect(error).toBeInstanceOf(ConfigError);
    expect(inspect(error, { depth: 8 })).not.toContain(PASS);
  });
});

describe('a refusal from the model', () => {
  for (const stream of [false, true]) {
    it(`is not an empty answer (stream: ${stream})`, async () => {
      server.reset();
      server.reply({ refusal: 'I cannot help with that request.' });
      const agent = new Agent({
        name: 'bot',
        stream,
        client: new OpenAIChatClient({
          model: 'gpt-test',
          apiKey: 'sk-test',
          baseURL: server.url,
          maxRetries: 0,
        }),
      });
      const team = new RoundRobinGroupChat([agent], {
        terminationCondition: new TextMessageTermination('bot'),
      });
      const run = await team.run('Do something bad');
      const answer = run.messages.at(-1);
      expect(answer?.source).toBe('bot');
      expect(typeof answer?.content).toBe('string');
      expect(answer?.content).not.toBe('');
      expect(answer?.content).toContain('I cannot help with that request.');
      server.assertNoViolations();
    });
  }

  for (const stream of [false, true]) {
    it(`with an outputSchema it is a TextMessage holding the refusal, not an error (stream: ${stream})`, async () => {
      server.reset();
      server.reply({ refusal: 'I cannot help with that request.' });
      const agent = new Agent({
        name: 'bot',
        stream,
        outputSchema: z.object({ a: z.string() }),
        client: new OpenAIChatClient({
          model: 'gpt-test',
          apiKey: 'sk-test',
          baseURL: server.url,
          maxRetries: 0,
        }),
      });
      const team = new RoundRobinGroupChat([agent], {
        terminationCondition: new TextMessageTermination('bot'),
      });
      const run = await team.run('Do something bad');
      const answer = run.messages.at(-1);
      expect(answer?.type).toBe('TextMessage');
      expect(answer?.content).toBe('I cannot help with that request.');
      server.assertNoViolations();
    });
  }
});

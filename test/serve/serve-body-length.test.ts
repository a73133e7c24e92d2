// A body with Content-Length within maxBodyBytes is read whole (no stream); a Request made in code
// whose Content-Length says less than its body carries is still refused with 413, and one that
// says the truth is read as JSON.
import { describe, expect, it } from 'vitest';

import { MemoryCheckpointStore, serve } from '../../src/index.js';
import { serveDesk } from '../support/serve-desk.js';

const TOKEN = 'body-length-token';
const handler = serve(serveDesk({ store: new MemoryCheckpointStore() }).workflow, {
  token: TOKEN,
  maxBodyBytes: 100,
});
const post = (body: string, length: number) =>
  handler.fetch(
    new Request('http://desk.test/sessions', {
      method: 'POST',
      headers: {
        authorization: `Bearer ${TOKEN}`,
        'content-type': 'application/json',
        'content-length': String(length),
      },
      body,
    }),
  );

describe('a body with Content-Length', () => {
  it('is refused with 413 when it is longer than the limit, whatever its header says', async () => {
    const body = JSON.stringify({ id: 'x'.repeat(150) });
    const response = await post(body, 20);
    expect(response.status).toBe(413);
    expect(await response.json()).toEqual({
      error: {
        code: 'payload_too_large',
        message: 'body: larger than the limit of 100 bytes (serve option maxBodyBytes).',
      },
    });
  });

  it('is read as JSON when it is within the limit', async () => {
    const body = JSON.stringify({ id: 'length-ok' });
    const response = await post(body, Buffer.byteLength(body));
    expect(response.status).toBe(201);
    expect(await response.json()).toEqual({ id: 'length-ok' });
  });
});

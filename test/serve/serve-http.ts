import { listenOnNode, type Listening } from '../../src/serve/node-listen.js';
import type { ServeHandler } from '../../src/index.js';

export const TOKEN = 'test-token-1';
export const OTHER = 'test-token-2';

/** Two principals: `alice` (TOKEN) and `bob` (OTHER). */
export function twoTenants(request: Request): { id: string } | null {
  const header = request.headers.get('authorization');
  if (header === `Bearer ${TOKEN}`) return { id: 'alice' };
  if (header === `Bearer ${OTHER}`) return { id: 'bob' };
  return null;
}

export function listen(handler: ServeHandler): Promise<Listening> {
  return listenOnNode(handler, 0, '127.0.0.1');
}

/** A fetch with the token, JSON body and answer. */
export function client(base: string, token = TOKEN) {
  return async (
    method: string,
    path: string,
    body?: unknown,
    headers: Record<string, string> = {},
  ) => {
    const response = await fetch(`${base}${path}`, {
      method,
      headers: {
        authorization: `Bearer ${token}`,
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
        ...headers,
      },
      ...(body === undefined
        ? {}
        : { body: typeof body === 'string' ? body : JSON.stringify(body) }),
    });
    const text = await response.text();
    let json: unknown;
    try {
      json = text === '' ? undefined : JSON.parse(text);
    } catch {
      json = text;
    }
    // The tests read answers of every route through one helper: their shapes are what they check.
    // eslint-disable-next-line @typescript-eslint/no-explicit-any
    return { status: response.status, headers: response.headers, json: json as any, text };
  };
}

/** Reads SSE text into events `{id, event, data}`. */
export function parseSse(text: string): { id?: string; event?: string; data: string }[] {
  return text
    .split('\n\n')
    .filter((block) => block.trim() !== '')
    .map((block) => {
      const out: { id?: string; event?: string; data: string } = { data: '' };
      for (const line of block.split('\n')) {
        const at = line.indexOf(': ');
        const key = line.slice(0, at);
        const value = line.slice(at + 2);
        if (key === 'id') out.id = value;
        else if (key === 'event') out.event = value;
        else if (key === 'data') out.data = value;
      }
      return out;
    });
}

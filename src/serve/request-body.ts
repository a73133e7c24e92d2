import { HttpError } from './http-error.js';

/**
 * Reads a request's JSON body within `maxBytes`, else 413. A `Content-Length` over the limit is
 * refused before reading; one within it is read whole (HTTP's framing ends the body there, and
 * the adapters read it without a stream: `@hono/node-server` straight from the socket), then
 * checked again, so a `Request` made in code with a header that lies is still refused. Without
 * `Content-Length` (chunked) bytes are counted as they arrive, and more than the limit answers
 * 413 without reading the rest. An empty body is `{}`; text that is not JSON answers 400.
 */
export async function readJsonBody(request: Request, maxBytes: number): Promise<unknown> {
  const declared = Number(request.headers.get('content-length') ?? Number.NaN);
  if (declared > maxBytes) throw tooLarge(maxBytes);
  if (declared >= 0) {
    const bytes = new Uint8Array(await request.arrayBuffer());
    if (bytes.byteLength > maxBytes) throw tooLarge(maxBytes);
    return parsed(bytes);
  }
  const body = request.body;
  if (body === null) return {};
  const reader = body.getReader();
  const parts: Uint8Array[] = [];
  let total = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    total += value.byteLength;
    if (total > maxBytes) {
      await reader.cancel().catch(() => {});
      throw tooLarge(maxBytes);
    }
    parts.push(value);
  }
  return parsed(Buffer.concat(parts));
}

const decoder = new TextDecoder('utf-8', { fatal: false });

function parsed(bytes: Uint8Array): unknown {
  const text = decoder.decode(bytes);
  if (text.trim() === '') return {};
  try {
    const body: unknown = JSON.parse(text);
    return body;
  } catch (error) {
    throw new HttpError(
      400,
      'bad_request',
      `body: not valid JSON (${error instanceof Error ? error.message : String(error)}).`,
    );
  }
}

function tooLarge(maxBytes: number): HttpError {
  return new HttpError(
    413,
    'payload_too_large',
    `body: larger than the limit of ${maxBytes} bytes (serve option maxBodyBytes).`,
  );
}

import { HttpError } from './http-error.js';

/**
 * Reads a request's JSON body, counting bytes as they arrive: more than `maxBytes` answers 413
 * without reading the rest (a `Content-Length` over the limit is refused before reading; one
 * under it is not trusted). An empty body is `{}`; text that is not JSON answers 400.
 */
export async function readJsonBody(request: Request, maxBytes: number): Promise<unknown> {
  const declared = Number(request.headers.get('content-length') ?? Number.NaN);
  if (declared > maxBytes) throw tooLarge(maxBytes);
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
  const text = new TextDecoder('utf-8', { fatal: false }).decode(Buffer.concat(parts));
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

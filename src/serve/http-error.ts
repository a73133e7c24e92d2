/**
 * A request answered with an error: `status`, and the body `{ error: { code, message } }` of
 * serve()'s routes. `headers` go on the answer too (e.g. `Retry-After`, `WWW-Authenticate`).
 */
export class HttpError extends Error {
  readonly status: number;
  readonly code: string;
  readonly headers: Readonly<Record<string, string>>;

  constructor(
    status: number,
    code: string,
    message: string,
    headers: Readonly<Record<string, string>> = {},
  ) {
    super(message);
    this.name = 'HttpError';
    this.status = status;
    this.code = code;
    this.headers = headers;
  }
}

/** The JSON answer of an error. */
export function errorResponse(error: HttpError): Response {
  return Response.json(
    { error: { code: error.code, message: error.message } },
    { status: error.status, headers: error.headers },
  );
}

/** 400: the body (or a query parameter) is malformed at `field`. */
export function badRequest(field: string, problem: string): HttpError {
  return new HttpError(400, 'bad_request', `${field}: ${problem}`);
}

/** 404 for a session the caller may not see, whether it exists or not (never 403). */
export function sessionNotFound(id: string): HttpError {
  return new HttpError(404, 'not_found', `No session "${id}".`);
}

/** 409 for input while the session runs (`busy: "reject"`), with `Retry-After`. */
export function sessionBusy(id: string): HttpError {
  return new HttpError(
    409,
    'session_busy',
    `Session "${id}" is running; send the input again when this run ends.`,
    { 'retry-after': '1' },
  );
}

// Issue 43, item 1: a session id (chosen by any HTTP client) written into a generated test must
// stay text. `baton test record` and devtools' "Save as test" share `recordedTestSource`; an id
// holding a line break, U+2028 or U+2029 once became top-level statements of the test file.
// The HTTP edge also refuses such ids with a 400 before they reach a store.
import ts from 'typescript';
import { afterEach, describe, expect, it } from 'vitest';

import { serve } from '../../../src/index.js';
import { recordedTestSource } from '../../../src/testing/recorded-test.js';
import { desk } from '../serve/support.js';

/** The top-level statements of a source file, as TypeScript parses it. */
function topLevel(source: string): string[] {
  const file = ts.createSourceFile('x.test.ts', source, ts.ScriptTarget.Latest, true);
  return file.statements.map((s) => ts.SyntaxKind[s.kind]);
}

/** The string literals of the test's `it(...)` title and the recording's URL. */
function literals(source: string): string[] {
  const file = ts.createSourceFile('x.test.ts', source, ts.ScriptTarget.Latest, true);
  const found: string[] = [];
  const visit = (node: ts.Node) => {
    if (ts.isStringLiteral(node)) found.push(node.text);
    ts.forEachChild(node, visit);
  };
  visit(file);
  return found;
}

const hostile = [
  'a\nglobalThis.pwned = 1; //',
  'a\rglobalThis.pwned = 1; //',
  'a\u2028globalThis.pwned = 1; //',
  'a\u2029globalThis.pwned = 1; //',
  "a'); globalThis.pwned = 1; ('",
  'a`${globalThis.pwned = 1}`\\',
  'a */ globalThis.pwned = 1; /*',
];

describe('a generated recorded test', () => {
  for (const id of hostile) {
    it(`keeps the session id ${JSON.stringify(id)} inside comments and strings`, () => {
      const source = recordedTestSource({
        sessionId: id,
        modulePath: `work\nflow${id}.ts`,
        moduleImport: `./work'flow${id}.js`,
        exported: 'createWorkflow',
        batonImport: 'baton-agents',
        recordingFile: `${id}.recording.json`,
      });
      expect(topLevel(source)).toEqual([
        'ImportDeclaration',
        'ImportDeclaration',
        'ImportDeclaration',
        'ImportDeclaration',
        'ExpressionStatement',
      ]);
      expect(source).not.toMatch(/[\u2028\u2029\r]/);
      // Each comment line stays a comment: the id never starts a line of code.
      const header = source.split('\n').slice(0, 4);
      for (const line of header) expect(line.startsWith('//')).toBe(true);
      const strings = literals(source);
      expect(strings).toContain(`./work'flow${id}.js`);
      expect(strings).toContain(`replays session "${id}" as recorded`);
      expect(strings).toContain(`./${id}.recording.json`);
    });
  }
});

describe('a session id at the HTTP edge', () => {
  let handler: ReturnType<typeof serve> | undefined;
  afterEach(async () => {
    await handler?.close();
    handler = undefined;
  });
  const workflow = desk().workflow;
  const post = (path: string, body: unknown) =>
    handler!.fetch(
      new Request(`http://127.0.0.1${path}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: 'Bearer t' },
        body: JSON.stringify(body),
      }),
    );

  for (const [name, char] of [
    ['a line feed', '\n'],
    ['a NUL', '\u0000'],
    ['an escape', '\u001b'],
    ['a DEL', '\u007f'],
    ['U+2028', '\u2028'],
    ['U+2029', '\u2029'],
  ] as const) {
    const code = char.charCodeAt(0).toString(16).toUpperCase().padStart(4, '0');
    const expected = {
      error: {
        code: 'bad_request',
        message:
          `body.id: a session id holds no control characters or line separators; U+${code} ` +
          'is at index 3. Choose an id of printable characters.',
      },
    };
    it(`refuses an id holding ${name} on POST /sessions with a 400 naming it`, async () => {
      handler = serve(workflow, { token: 't' });
      const answer = await post('/sessions', { id: `abc${char}def` });
      expect(answer.status).toBe(400);
      expect(await answer.json()).toEqual(expected);
    });
  }

  it('refuses it on POST /chat (id) and POST /ag-ui (threadId) too', async () => {
    handler = serve(workflow, { token: 't' });
    const chat = await post('/chat', {
      id: 'abc\ndef',
      messages: [{ id: 'm1', role: 'user', parts: [{ type: 'text', text: 'hi' }] }],
      trigger: 'submit-message',
    });
    expect(chat.status).toBe(400);
    expect(((await chat.json()) as { error: { message: string } }).error.message).toBe(
      'body.id: a session id holds no control characters or line separators; U+000A is at ' +
        'index 3. Choose an id of printable characters.',
    );
    const agUi = await post('/ag-ui', {
      threadId: 'abc\u2028def',
      runId: 'r',
      messages: [],
      tools: [],
      context: [],
      state: {},
      forwardedProps: {},
    });
    expect(agUi.status).toBe(400);
    expect(((await agUi.json()) as { error: { message: string } }).error.message).toBe(
      'body.threadId: a session id holds no control characters or line separators; U+2028 is ' +
        'at index 3. Choose an id of printable characters.',
    );
  });
});

// Prints, as JSON, the npm packages a process has loaded after importing the library from src/
// and then doing what argv[2] names: `import` (nothing more), `json-schema-tool` (makes a tool
// defined by a JSON Schema with a pattern), `serve` (answers one request of serve()),
// `openai-client` (makes an OpenAIChatClient), `openai-request` (sends its first request to a
// closed port on loopback, which fails at once).
// Run under tsx: `node --import tsx test/support/loaded-packages.ts <what>`.
import { watchPackages } from '../../scripts/package-watch.mjs';

const loaded = watchPackages();
const baton = await import('../../src/index.js');
const what = process.argv[2];
if (what === 'json-schema-tool') {
  baton.tool({
    name: 'lookup',
    description: 'Looks an invoice up.',
    parameters: {
      type: 'object',
      properties: { id: { type: 'string', pattern: '^INV-\\d+$' } },
      required: ['id'],
    },
    execute: ({ id }) => String(id),
  });
} else if (what === 'serve') {
  const handler = baton.serve(
    () => {
      throw new Error('no workflow is needed to answer /healthz');
    },
    { token: 'secret' },
  );
  const answer = await handler.fetch(new Request('http://127.0.0.1/healthz'));
  if (answer.status !== 200) throw new Error(`/healthz answered ${answer.status}`);
} else if (what === 'openai-client' || what === 'openai-request') {
  const client = new baton.OpenAIChatClient({
    model: 'm',
    apiKey: 'k',
    baseURL: 'http://127.0.0.1:9/v1',
    maxRetries: 0,
  });
  if (what === 'openai-request') {
    const failed = await client.create({ messages: [{ role: 'user', content: 'hi' }] }).then(
      () => false,
      () => true,
    );
    if (!failed) throw new Error('a request to a closed port succeeded');
  }
} else if (what !== 'import') {
  throw new Error(`loaded-packages.ts: unknown action ${String(what)}`);
}
console.log(JSON.stringify(loaded()));

// Structured-output routing for models without tool calling: the coordinator answers in a zod
// schema (no handoff tools are offered to it) and `resolve` turns its answer into the next agent —
// or `null`, so that the coordinator's own reply goes to the user.
//
// Run it: npx tsx samples/structured-resolver.ts
import { pathToFileURL } from 'node:url';

import { z } from 'zod';

import {
  Agent,
  Console,
  HandoffBuilder,
  type ModelRequest,
  ScriptedChatClient,
  scriptedText,
} from '../src/index.js';

const Route = z.object({
  route: z.enum(['billing', 'tech', 'none']),
  reply: z.string().describe('What to tell the user when route is "none".'),
});

const lastUser = (request: ModelRequest) =>
  [...request.messages].reverse().find((m) => m.role === 'user')?.content ?? '';

/** A scripted router model that answers in the schema's JSON, as a JSON-mode model would. */
const routerModel = new ScriptedChatClient((request) => {
  const text = lastUser(request);
  const route = /invoice|refund/i.test(text)
    ? 'billing'
    : /internet|router/i.test(text)
      ? 'tech'
      : 'none';
  return scriptedText(
    JSON.stringify({ route, reply: route === 'none' ? 'Hello! Billing or technical?' : '' }),
  );
});

const triage = new Agent({ name: 'triage', description: 'Routes requests.', client: routerModel });
const billing = new Agent({
  name: 'billing',
  description: 'Invoices and refunds.',
  client: new ScriptedChatClient(() => scriptedText('I have refunded the duplicate charge.')),
});
const tech = new Agent({
  name: 'tech',
  description: 'Internet and devices.',
  client: new ScriptedChatClient(() => scriptedText('Your line is reset.')),
});

/** The desk, routed by structured output. */
export const workflow = new HandoffBuilder({
  name: 'resolver-desk',
  participants: [triage, billing, tech],
})
  .coordinator(triage)
  .withResolver({
    schema: Route,
    resolve: (answer) => (answer.route === 'none' ? null : answer.route),
  })
  .build();

async function main(): Promise<void> {
  const session = workflow.session('resolver-sample');
  for (const reply of ['hi', 'I was charged twice on my invoice']) {
    console.log(`\nuser> ${reply}`);
    await Console(session.runStream(reply, { outputTaskMessages: false }));
  }
  const request = routerModel.calls[0];
  console.log(
    `\nThe router was offered ${request?.tools?.length ?? 0} tools and this output format:`,
  );
  console.log(JSON.stringify(request?.outputSchema));
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) await main();

// Lazy routing: the specialist who is talking to the user keeps the conversation (no coordinator
// call per user turn). The request is classified on the first message, and again only when the
// specialist answers "This is outside my area" — in the same run, without bothering the user.
//
// Run it: npx tsx samples/lazy-routing.ts
import { pathToFileURL } from 'node:url';

import {
  Agent,
  Console,
  HandoffBuilder,
  type ModelRequest,
  ScriptedChatClient,
  scriptedText,
  scriptedToolCall,
  speakerOf,
} from '../src/index.js';

// Other agents' turns reach a model as user messages too: `speakerOf` tells the user's apart.
const lastUser = (request: ModelRequest) =>
  request.messages.findLast((m) => speakerOf(m) === 'user')?.content ?? '';

/** Scripted models that answer from the request: keywords decide, as a real model would by meaning. */
const triageModel = new ScriptedChatClient((request) => {
  const wanted = /internet|router/i.test(lastUser(request))
    ? 'handoff_to_tech'
    : 'handoff_to_billing';
  // Like a real model, it can only call a tool it is offered: a specialist who declined this
  // request is not offered again.
  const offered = (request.tools ?? []).map((t) => t.name);
  return scriptedToolCall(offered.includes(wanted) ? wanted : (offered[0] ?? wanted));
});
const specialist = (topic: RegExp, answer: (text: string) => string): ScriptedChatClient =>
  new ScriptedChatClient((request) => {
    const text = lastUser(request);
    return scriptedText(
      topic.test(text) ? answer(text) : 'This is outside my area: let me find the right person.',
    );
  });

const billingModel = specialist(/invoice|refund|INV-/i, (t) =>
  /INV-\d+/.test(t) ? `Refunded ${t.match(/INV-\d+/)?.[0]}.` : 'Which invoice?',
);
const techModel = specialist(
  /internet|router/i,
  () => 'Please restart your router; I have reset your line.',
);

const triage = new Agent({ name: 'triage', description: 'Routes requests.', client: triageModel });
const billing = new Agent({
  name: 'billing',
  description: 'Invoices and refunds.',
  client: billingModel,
});
const tech = new Agent({ name: 'tech', description: 'Internet and devices.', client: techModel });

/** The desk with lazy routing: the coordinator classifies only when needed. */
export const workflow = new HandoffBuilder({
  name: 'lazy-desk',
  participants: [triage, billing, tech],
})
  .coordinator(triage)
  .withUserReplyRouting('lazy', { handoffPhrase: 'This is outside my area' })
  .build();

async function main(): Promise<void> {
  const session = workflow.session('lazy-sample');
  const replies = [
    'My invoice is wrong',
    'It is INV-7, please refund it',
    'Also my internet keeps dropping',
    'The router blinks red, is that the internet fault?',
  ];
  for (const reply of replies) {
    console.log(`\nuser> ${reply}`);
    await Console(session.runStream(reply, { outputTaskMessages: false }));
  }
  const calls = [triageModel, billingModel, techModel].reduce((n, c) => n + c.calls.length, 0);
  // Coordinator routing calls triage and a specialist on every turn: 8 calls for these 4 turns.
  console.log(
    `\nModel calls for ${replies.length} user turns: ${calls} (triage ${triageModel.calls.length}).`,
  );
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) await main();

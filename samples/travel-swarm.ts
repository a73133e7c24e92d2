// A Swarm travel desk: the travel agent hands a refund to the flights refunder, who needs the
// flight reference and hands off to the user to ask for it. HandoffTermination('user') stops the
// team; the user's answer resumes it with run(handoffMessage({ source: 'user', target, content })).
//
// Run it: npx tsx samples/travel-swarm.ts
import { pathToFileURL } from 'node:url';

import { z } from 'zod';

import {
  Agent,
  Console,
  HandoffTermination,
  handoffMessage,
  ScriptedChatClient,
  Swarm,
  scriptedText,
  scriptedToolCall,
  TextMentionTermination,
  tool,
} from '../src/index.js';

const refunds: string[] = [];
const refundFlight = tool({
  name: 'refund_flight',
  description: 'Refunds a flight by its booking reference.',
  parameters: z.object({ flightId: z.string() }),
  execute: ({ flightId }) => {
    refunds.push(flightId);
    return `Flight ${flightId} refunded`;
  },
});

const travelAgent = new Agent({
  name: 'travel_agent',
  description: 'Plans travel and routes refunds.',
  instructions:
    'You are a travel agent. Hand refunds to flights_refunder. Say TERMINATE when done.',
  handoffs: ['flights_refunder', 'user'],
  client: new ScriptedChatClient([
    scriptedToolCall('handoff_to_flights_refunder'),
    scriptedText('Your refund is done. Have a good trip! TERMINATE'),
  ]),
});
const flightsRefunder = new Agent({
  name: 'flights_refunder',
  description: 'Refunds flights.',
  instructions: 'You refund flights. Ask the user (handoff to user) for the booking reference.',
  handoffs: ['travel_agent', 'user'],
  tools: [refundFlight],
  maxToolIterations: 2,
  client: new ScriptedChatClient([
    scriptedToolCall('handoff_to_user'),
    scriptedToolCall('refund_flight', { flightId: 'BA-2417' }),
    scriptedToolCall('handoff_to_travel_agent'),
  ]),
});

/** The travel desk: pauses for the user on a handoff to "user", ends on TERMINATE. */
export const workflow = new Swarm([travelAgent, flightsRefunder], {
  terminationCondition: new HandoffTermination('user').or(new TextMentionTermination('TERMINATE')),
});

async function main(): Promise<void> {
  const first = await Console(workflow.runStream('I need to refund my flight.'), {
    outputStats: true,
  });
  const last = first.messages.at(-1);
  const asker = last?.type === 'HandoffMessage' ? last.source : 'travel_agent';
  console.log(`\n${first.stopReason} The user answers ${asker}:\n`);
  await Console(
    workflow.runStream(
      handoffMessage({ source: 'user', target: asker, content: 'The reference is BA-2417.' }),
    ),
    { outputStats: true },
  );
  console.log(`\nRefunded: ${refunds.join(', ')}`);
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) await main();

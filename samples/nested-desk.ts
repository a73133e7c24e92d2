// A support desk whose specialist is itself a team (API.md §13, asAgent): triage hands research
// questions to `research`, which runs a nested round-robin team (a searcher and a fact checker)
// in a fresh inner session each time it answers. The inner messages stream live; the desk's thread
// records only research's answer. Scripted, rule-based models keep it offline.
//
// Run it: npx tsx samples/nested-desk.ts
import { pathToFileURL } from 'node:url';

import {
  Agent,
  asAgent,
  Console,
  HandoffBuilder,
  type ModelRequest,
  RoundRobinGroupChat,
  ScriptedChatClient,
  scriptedToolCall,
  speakerOf,
} from '../src/index.js';

/** The last user question in a model request. */
function question(request: ModelRequest): string {
  const last = request.messages.filter((m) => speakerOf(m) === 'user').at(-1);
  return last === undefined ? '' : String(last.content);
}

const FACTS: Record<string, string> = {
  'boiling point': 'Water boils at 100 °C at sea level (about 93 °C at 2,000 m).',
};

const searcher = new Agent({
  name: 'searcher',
  description: 'Finds a source for the question.',
  client: new ScriptedChatClient((request) => {
    const topic = Object.keys(FACTS).find((k) => question(request).includes(k));
    return { content: topic === undefined ? 'Nothing found.' : `Source found: ${FACTS[topic]}` };
  }),
});

const factChecker = new Agent({
  name: 'fact_checker',
  description: 'Checks the source and writes the final answer.',
  client: new ScriptedChatClient((request) => {
    // Another agent's answer reaches the model as `[searcher]: <text>`.
    const found = request.messages.find(
      (m) =>
        speakerOf(m) === 'searcher' && String(m.content).startsWith('[searcher]: Source found: '),
    );
    return {
      content:
        found === undefined
          ? 'I could not verify an answer.'
          : `Verified: ${String(found.content).slice('[searcher]: Source found: '.length)}`,
    };
  }),
});

/** The nested team, as one participant of the desk. */
export const research = asAgent(new RoundRobinGroupChat([searcher, factChecker], { maxTurns: 2 }), {
  name: 'research',
  description: 'Researches factual questions with a searcher and a fact checker.',
});

const triage = new Agent({
  name: 'triage',
  description: 'Greets the user and routes questions.',
  client: new ScriptedChatClient([scriptedToolCall('handoff_to_research', {}, 'call_1')]),
});

export const desk = new HandoffBuilder({ name: 'desk', participants: [triage, research] })
  .coordinator(triage)
  .build();

async function main(): Promise<void> {
  const result = await Console(
    desk.runStream('What is the boiling point of water in the mountains?'),
  );
  console.log(`\nStatus: ${result.status}; research asks: ${result.pendingRequest?.prompt}`);
  const thread = await desk.session('default').messages();
  console.log(`Desk thread: ${thread.map((m) => `${m.type}(${m.source})`).join(', ')}`);
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  main().catch((error: unknown) => {
    console.error(error);
    process.exit(1);
  });
}

// A review pipeline as a graph (API.md §13): the writer drafts, the critic answers REVISE until
// the draft is good, then APPROVE; two translators work on the approved draft at the same time
// (fan-out), and the editor summarizes once both are done (fan-in). Rule-based scripted models
// keep it offline and deterministic.
//
// Run it: npx tsx samples/review-graph.ts
import { pathToFileURL } from 'node:url';

import {
  Agent,
  Console,
  GraphBuilder,
  type ModelRequest,
  ScriptedChatClient,
  speakerOf,
} from '../src/index.js';

const DRAFTS = [
  'Our new app helps you plan meals.',
  'Plan a week of meals in two minutes, with a shopping list made for you.',
];
const TRANSLATIONS: Record<string, Record<string, string>> = {
  French: {
    [DRAFTS[1] as string]:
      'Planifiez une semaine de repas en deux minutes, avec une liste de courses faite pour vous.',
  },
  German: {
    [DRAFTS[1] as string]:
      'Planen Sie eine Woche Mahlzeiten in zwei Minuten, mit einer fertigen Einkaufsliste.',
  },
};

/** The text of the last message from `source` in a model request (`[source]: <text>`). */
function lastFrom(request: ModelRequest, source: string): string {
  const m = request.messages.findLast((m) => speakerOf(m) === source);
  if (m === undefined) throw new Error(`no message from ${source} in the request`);
  return String(m.content).slice(`[${source}]: `.length);
}

/** How many answers `source` already gave, as the request shows them. */
function answersOf(request: ModelRequest, source: string): number {
  return request.messages.filter((m) => speakerOf(m) === source).length;
}

/** How many answers the asking agent gave itself (its own answers carry no name). */
function ownAnswers(request: ModelRequest): number {
  return request.messages.filter((m) => m.role === 'assistant' && !('name' in m && m.name)).length;
}

const writer = new Agent({
  name: 'writer',
  description: 'Drafts and revises a product blurb.',
  client: new ScriptedChatClient((request) => ({
    content: DRAFTS[Math.min(ownAnswers(request), DRAFTS.length - 1)] as string,
  })),
});

const critic = new Agent({
  name: 'critic',
  description: 'Answers REVISE with a reason, or APPROVE.',
  client: new ScriptedChatClient((request) => ({
    content:
      lastFrom(request, 'writer') === DRAFTS[1]
        ? 'Clear and concrete. APPROVE'
        : 'REVISE: say what the reader gains, with a number.',
  })),
});

const translator = (language: string) =>
  new Agent({
    name: `translator_${language.toLowerCase()}`,
    description: `Translates the approved draft into ${language}.`,
    client: new ScriptedChatClient((request) => ({
      content: `${language}: ${TRANSLATIONS[language]?.[lastFrom(request, 'writer')] ?? '(no translation)'}`,
    })),
  });
const french = translator('French');
const german = translator('German');

const summary = new Agent({
  name: 'summary',
  description: 'Summarizes the review.',
  client: new ScriptedChatClient((request) => ({
    content:
      `Approved after ${answersOf(request, 'writer')} drafts; ` +
      `translated into ${['translator_french', 'translator_german'].filter((t) => answersOf(request, t) > 0).length} languages.`,
  })),
});

/** writer ⇄ critic until APPROVE, then both translators at once, then the summary. */
export const workflow = new GraphBuilder({ name: 'review' })
  .addNode(writer)
  .addNode(critic)
  .addNode(french)
  .addNode(german)
  .addNode(summary)
  .addEdge(writer, critic)
  .addEdge(critic, writer, { when: 'REVISE' })
  .addEdge(critic, [french, german], { when: 'APPROVE' })
  .addEdge([french, german], summary)
  .setEntryPoint(writer)
  .build();

async function main(): Promise<void> {
  console.log(workflow.toMermaid());
  console.log();
  const result = await Console(
    workflow.runStream('Write a one-line blurb for our meal-planning app.'),
  );
  console.log(`\nStop reason: ${result.stopReason}`);
  const checkpoints = await workflow.session('default').messages();
  console.log(`Thread: ${checkpoints.length} messages`);
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  main().catch((error: unknown) => {
    console.error(error);
    process.exit(1);
  });
}

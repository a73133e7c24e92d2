// The files `baton init` writes: a desk that runs as it is (offline, on scripted stand-ins, until
// the environment names a model), the tsconfig.json the README shows, and the package.json
// scripts that drive it. test/scenarios/cli-init.test.ts type-checks and runs what it writes.

/** `desk.ts`: a coordinator, a billing specialist with a tool, the user in the loop. */
export const DESK_TS = `// A desk of two agents: triage routes billing questions to billing, which looks invoices up.
// Offline (no OPENAI_API_KEY, OPENAI_BASE_URL or ANTHROPIC_API_KEY) both run on scripted
// stand-ins; with one of them set (and \`openai\`, or \`ai\` and \`@ai-sdk/anthropic\`, installed),
// on that model.
//   npm start          talk to it in this terminal (baton run desk.ts)
//   npm run dev        the devtools page: the graph, the transcript, the step log
//   npm run serve      sessions over HTTP, with a customer chat page
//   npm run typecheck  tsc
import { z } from 'zod';
import {
  Agent,
  type ChatClient,
  HandoffBuilder,
  MaxMessageTermination,
  modelFromEnvironment,
  type ModelRequest,
  ScriptedChatClient,
  scriptedText,
  scriptedToolCall,
  TextMentionTermination,
  tool,
} from 'baton-agents';

const lookup = tool({
  name: 'lookup_invoice',
  description: 'Looks an invoice up by its id, e.g. INV-1001.',
  parameters: z.object({ invoiceId: z.string() }),
  effect: 'read',
  execute: ({ invoiceId }) => \`\${invoiceId}: $49.00, paid on 2026-11-02\`,
});

/** The text of the request's last message. */
const last = (request: ModelRequest) => String(request.messages.at(-1)?.content ?? '');
/** The invoice id the conversation mentioned last. */
const invoiceIn = (request: ModelRequest) =>
  request.messages
    .map((message) => /INV-\\d+/i.exec(String(message.content ?? ''))?.[0])
    .findLast((id) => id !== undefined)
    ?.toUpperCase();

const { client } = await modelFromEnvironment();
const model = (standIn: ChatClient): ChatClient => client ?? standIn;

const triage = new Agent({
  name: 'triage',
  instructions: 'Greet the customer and hand billing questions (invoices, charges) to billing.',
  client: model(
    new ScriptedChatClient((request) =>
      /invoice|charge|INV-/i.test(last(request))
        ? scriptedToolCall('handoff_to_billing')
        : scriptedText('Hello! Ask me about an invoice, e.g. "Where is INV-1001?"'),
    ),
  ),
});

const billing = new Agent({
  name: 'billing',
  description: 'Answers questions about invoices and charges.',
  instructions: 'Look invoices up with lookup_invoice and answer in one sentence.',
  tools: [lookup],
  maxToolIterations: 2,
  client: model(
    new ScriptedChatClient((request) => {
      const answer = request.messages.at(-1);
      if (answer?.role === 'tool') return scriptedText(\`\${answer.content}. Anything else?\`);
      const invoiceId = invoiceIn(request);
      return invoiceId === undefined
        ? scriptedText('Which invoice is it (INV-...)?')
        : scriptedToolCall('lookup_invoice', { invoiceId });
    }),
  ),
});

export const workflow = new HandoffBuilder({ name: 'desk', participants: [triage, billing] })
  .coordinator(triage)
  .withUserReplyRouting('last_agent')
  .withTerminationCondition(
    new TextMentionTermination('bye', { sources: ['user'] }).or(new MaxMessageTermination(40)),
  )
  .build();
`;

/** The README's tsconfig.json: TypeScript 5 to 7, files that import each other by `.ts` names. */
export const TSCONFIG = {
  compilerOptions: {
    target: 'ES2023',
    module: 'NodeNext',
    moduleResolution: 'NodeNext',
    types: ['node'],
    strict: true,
    verbatimModuleSyntax: true,
    erasableSyntaxOnly: true,
    allowImportingTsExtensions: true,
    skipLibCheck: true,
    noEmit: true,
  },
};

/** The package.json scripts `baton init` adds (an existing script of the same name stays). */
export const SCRIPTS: Readonly<Record<string, string>> = {
  start: 'baton run desk.ts',
  dev: 'baton dev desk.ts',
  serve: 'baton serve desk.ts --ui',
  typecheck: 'tsc',
};

/** What the desk needs installed, for the line `baton init` prints when some of it is missing. */
export const NEEDED = {
  dependencies: ['baton-agents', 'zod'],
  devDependencies: ['typescript', '@types/node', 'tsx'],
};

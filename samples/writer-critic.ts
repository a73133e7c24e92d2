// The termination tutorial's writer and critic, in a round-robin team, three ways:
//   1. MaxMessageTermination(3) stops them; run() with no task continues where they stopped;
//   2. MaxMessageTermination(10).or(TextMentionTermination('APPROVE'));
//   3. FunctionCallTermination('approve'): the critic approves by calling an `approve` tool.
// Scripted models keep it offline and deterministic.
//
// Run it: npx tsx samples/writer-critic.ts
import { pathToFileURL } from 'node:url';

import { z } from 'zod';

import {
  Agent,
  Console,
  FunctionCallTermination,
  MaxMessageTermination,
  RoundRobinGroupChat,
  ScriptedChatClient,
  scriptedText,
  scriptedToolCall,
  TextMentionTermination,
  tool,
} from '../src/index.js';

const drafts = [
  'Autumn leaves falling / the path is covered in gold / the year lets go now',
  'Maple leaves drifting / gold carpets the quiet path / the year exhales slow',
  'Maple leaves drifting / gold carpets the quiet path / the year breathes out, slow',
];

const writer = () =>
  new Agent({
    name: 'writer',
    description: 'Writes and revises poems.',
    instructions: 'You are a helpful AI assistant that writes and revises poems.',
    client: new ScriptedChatClient(
      drafts.map((d) => scriptedText(d, { promptTokens: 30, completionTokens: 20 })),
    ),
  });

/** Scenario 2's team: stops on APPROVE or after ten messages. */
export const workflow = new RoundRobinGroupChat(
  [
    writer(),
    new Agent({
      name: 'critic',
      instructions:
        'Provide constructive feedback. Respond with APPROVE when your feedback is addressed.',
      client: new ScriptedChatClient([
        scriptedText('"Falling" is flat; try an image of motion.', {
          promptTokens: 40,
          completionTokens: 10,
        }),
        scriptedText('The rhythm of the last line is off.', {
          promptTokens: 60,
          completionTokens: 9,
        }),
        scriptedText('Lovely. APPROVE', { promptTokens: 80, completionTokens: 4 }),
      ]),
    }),
  ],
  { terminationCondition: new MaxMessageTermination(10).or(new TextMentionTermination('APPROVE')) },
);

async function main(): Promise<void> {
  console.log('== 1. MaxMessageTermination(3), then run() continues ==');
  const critic = new Agent({
    name: 'critic',
    client: new ScriptedChatClient([
      scriptedText('"Falling" is flat; try an image of motion.'),
      scriptedText('Better. One more pass on the last line.'),
    ]),
  });
  const short = new RoundRobinGroupChat([writer(), critic], {
    terminationCondition: new MaxMessageTermination(3),
  });
  await Console(short.runStream('Write a short poem about the fall season.'), {
    outputStats: true,
  });
  console.log('\n-- run() with no task: the condition was reset; the writer speaks next --');
  await Console(short.runStream(), { outputStats: true });

  console.log('\n== 2. MaxMessageTermination(10).or(TextMentionTermination("APPROVE")) ==');
  await Console(workflow.runStream('Write a short poem about the fall season.'), {
    outputStats: true,
  });

  console.log('\n== 3. FunctionCallTermination("approve") ==');
  const approve = tool({
    name: 'approve',
    description: 'Approve the poem when all feedback has been addressed.',
    parameters: z.object({}),
    execute: () => 'Approved.',
  });
  const approver = new Agent({
    name: 'critic',
    tools: [approve],
    client: new ScriptedChatClient([
      scriptedText('Tighten the second line.'),
      scriptedToolCall('approve', {}),
    ]),
  });
  const byTool = new RoundRobinGroupChat([writer(), approver], {
    terminationCondition: new FunctionCallTermination('approve'),
  });
  await Console(byTool.runStream('Write a short poem about the fall season.'), {
    outputStats: true,
  });
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) await main();

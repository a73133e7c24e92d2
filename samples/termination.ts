// A writer and a critic take turns (round robin) until the critic approves or ten messages have
// been exchanged; then the same team stops only once BOTH the critic approved AND the writer
// marked the draft final. Scripted models keep the program deterministic and offline.
//
// Run it: npx tsx samples/termination.ts
import { pathToFileURL } from 'node:url';

import {
  Agent,
  Console,
  MaxMessageTermination,
  RoundRobinGroupChat,
  ScriptedChatClient,
  scriptedText,
  TextMentionTermination,
} from '../src/index.js';

const usage = (promptTokens: number, completionTokens: number) => ({
  promptTokens,
  completionTokens,
});

const writer = new Agent({
  name: 'writer',
  instructions: 'You write haiku and revise them after feedback.',
  client: new ScriptedChatClient([
    scriptedText(
      'Leaves fall on the path / the wind carries them away / autumn says goodbye',
      usage(40, 18),
    ),
    scriptedText(
      'Red leaves drift and spin / cold wind hums through empty boughs / autumn lets them go',
      usage(80, 20),
    ),
    scriptedText(
      'Red leaves drift and spin / cold wind hums through empty boughs / autumn lets them go. FINAL',
      usage(120, 22),
    ),
  ]),
});

const critic = new Agent({
  name: 'critic',
  instructions: 'You review haiku. Say APPROVE when a haiku is good.',
  client: new ScriptedChatClient([
    scriptedText('The imagery is flat; show the colour and the sound of the wind.', usage(60, 15)),
    scriptedText('Much better. APPROVE', usage(100, 5)),
    scriptedText('Still approved. APPROVE', usage(140, 5)),
  ]),
});

/** Stops when the critic approves, or after ten messages, whichever comes first. */
export const workflow = new RoundRobinGroupChat([writer, critic], {
  terminationCondition: new MaxMessageTermination(10).or(new TextMentionTermination('APPROVE')),
});

async function main(): Promise<void> {
  console.log('== Run 1: MaxMessageTermination(10).or(TextMentionTermination("APPROVE")) ==');
  await Console(workflow.runStream('Write a haiku about autumn.'), { outputStats: true });

  // `.and()`: both must have happened since the last stop, not necessarily on the same message.
  const both = new RoundRobinGroupChat([writer, critic], {
    terminationCondition: new TextMentionTermination('APPROVE', { sources: ['critic'] }).and(
      new TextMentionTermination('FINAL', { sources: ['writer'] }),
    ),
  });
  console.log('\n== Run 2: critic says APPROVE .and() writer says FINAL ==');
  // The scripted writer and critic continue their scripts: the writer's next line says FINAL.
  await Console(both.runStream('Polish it and mark it FINAL.'), { outputStats: true });
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) await main();

// A graph for the devtools browser test: `split` fans out to `left` and `right`, which take a
// while each (a slow model), then `join` answers. Run it with `baton dev test/support/fan-graph.ts`.
import { Agent, GraphBuilder, ScriptedChatClient } from '../../src/index.js';

const THINK_MS = 1_500;

const quick = (name: string) =>
  new Agent({ name, client: new ScriptedChatClient(() => ({ content: `${name} done` })) });

const slow = (name: string) =>
  new Agent({
    name,
    client: new ScriptedChatClient(
      () =>
        new Promise<{ content: string }>((resolve) =>
          setTimeout(() => resolve({ content: `${name} done` }), THINK_MS),
        ),
    ),
  });

const [split, left, right, join] = [quick('split'), slow('left'), slow('right'), quick('join')];

export const workflow = new GraphBuilder({ name: 'fan' })
  .addNode(split)
  .addNode(left)
  .addNode(right)
  .addNode(join)
  .addEdge(split, [left, right])
  .addEdge([left, right], join)
  .setEntryPoint(split)
  .build();

// Issue 32: a step that updates the conversation state costs its patch, not the state. A desk whose
// state holds 1 kB or 100 kB of notes takes 20 turns, each a tool call that bumps a counter in the
// state, then 20 updates from the application (`session.updateState`); the bytes of each step
// record the store keeps are compared across the two sizes (the first record, a snapshot of the
// fresh session, holds the whole state once).
// Usage: state-bytes.ts [--turns n]
import { z } from 'zod';

import {
  Agent,
  HandoffBuilder,
  MemoryCheckpointStore,
  ScriptedChatClient,
  scriptedText,
  scriptedToolCall,
  tool,
} from '../src/index.js';

const args = process.argv.slice(2);
const turnsAt = args.indexOf('--turns');
const TURNS = turnsAt === -1 ? 20 : Number(args[turnsAt + 1]);

const State = z.object({ count: z.number().int(), notes: z.array(z.string()) });

/** The state's notes: `bytes` of JSON in 100-character strings. */
const notesOf = (bytes: number) =>
  Array.from({ length: Math.round(bytes / 103) }, (_, i) => `${i}`.padEnd(100, '.'));

async function measure(stateBytes: number) {
  const bump = tool({
    name: 'bump',
    parameters: z.object({}),
    execute: (_args, ctx) => {
      ctx.updateState((draft) => {
        draft.count = Number(draft.count) + 1;
      });
      return 'bumped';
    },
  });
  const client = new ScriptedChatClient((_r, i) =>
    i % 2 === 0 ? scriptedToolCall('bump') : scriptedText('Done. Anything else?'),
  );
  const desk = new Agent({ name: 'desk', client, tools: [bump], maxToolIterations: 2 });
  const store = new MemoryCheckpointStore();
  const initial = { count: 0, notes: notesOf(stateBytes) };
  const workflow = new HandoffBuilder({
    participants: [desk],
    state: { schema: State, initial },
  })
    .coordinator(desk)
    .withCheckpointing(store)
    .build();
  const session = workflow.session('bytes');
  for (let i = 0; i < TURNS; i++) await session.run(`turn ${i}`);
  for (let i = 0; i < TURNS; i++) {
    await session.updateState((draft) => {
      draft.count = Number(draft.count) + 1;
    });
  }
  const records = await store.read('bytes', { from: 'start' });
  const events = (await session.checkpoints()).map((c) => c.event);
  const sizes = (event: string) =>
    records.filter((_r, i) => i > 0 && events[i] === event).map((r) => r.data.length);
  const mean = (xs: number[]) => Math.round(xs.reduce((a, b) => a + b, 0) / xs.length);
  const answers = sizes('agent_response:desk');
  const updates = sizes('state_update');
  return {
    stateJson: JSON.stringify(initial).length,
    snapshot: records[0]?.data.length ?? 0,
    answer: mean(answers),
    update: mean(updates),
    updateMax: Math.max(...updates),
    count: (await session.state()).count,
  };
}

const rows = [await measure(1_000), await measure(100_000)];
console.log(`state bytes per update, ${TURNS} tool updates and ${TURNS} app updates per size`);
console.log(
  '| state JSON | first record (snapshot) | tool-update step record (mean) | app update record (mean / max) | final count |',
);
console.log('|---:|---:|---:|---:|---:|');
for (const r of rows) {
  console.log(
    `| ${r.stateJson} B | ${r.snapshot} B | ${r.answer} B | ${r.update} B / ${r.updateMax} B | ${String(r.count)} |`,
  );
}

import { it } from 'vitest';
import { MemoryCheckpointStore, approve, replay, TextMentionTermination } from '../../src/index.js';
import { desk } from './desk.js';
it('scratch', async () => {
  const store = new MemoryCheckpointStore();
  const w = desk({ store });
  const s = w.session('s1');
  for (const t of ['hello', 'I want a refund for an invoice', 'INV-7 please']) await s.run(t);
  await s.run(approve('b2'));
  const rec = await s.record();
  console.log(JSON.stringify(rec, null, 1).slice(0, 6000));
  console.log(await replay(desk(), rec));
  console.log(await replay(desk({ billingInstructions: 'x' }), rec));
  console.log(await replay(desk({ withoutLookup: true }), rec));
  console.log(await replay(desk({ stop: new TextMentionTermination('NEVER') }), rec));
  console.log(await replay(desk({ stop: new TextMentionTermination('INV') }), rec));
  console.log(await replay(desk(), rec, { tools: 'live' }));
});

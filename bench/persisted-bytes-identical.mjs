// Persisted bytes of one deterministic set of sessions with the build (a dist directory) given as
// the argument: random bytes and Date.now fixed, so two builds that persist alike write identical
// step files. Prints a hash per file (record time and checksum blanked) and the total; diff the
// output of two builds. Usage: node bench/persisted-bytes-identical.mjs <dist directory>
import crypto, { createHash } from 'node:crypto';
import { syncBuiltinESMExports } from 'node:module';
import { mkdtempSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';

let seed = 1;
crypto.randomFillSync = (buf) => {
  for (let i = 0; i < buf.length; i++)
    buf[i] = (seed = (seed * 1103515245 + 12345) & 0x7fffffff) & 0xff;
  return buf;
};
syncBuiltinESMExports();
let clock = Date.UTC(2026, 0, 1);
Date.now = () => (clock += 7);

const b = await import(pathToFileURL(resolve(process.argv[2], 'index.js')).href);
const dir = mkdtempSync(join(tmpdir(), 'thread-bytes-'));
const store = new b.FileCheckpointStore(dir, { clock: () => Date.now() });
let call = 0;
const NEXT = { triage: 'billing', billing: 'technical', technical: 'account' };
const agent = (name) =>
  new b.Agent({
    name,
    description: 'relay',
    instructions: 'relay',
    client: {
      async create() {
        const next = NEXT[name];
        if (next)
          return {
            content: null,
            toolCalls: [{ id: `c${++call}`, name: `handoff_to_${next}`, arguments: '{}' }],
            usage: { promptTokens: 1, completionTokens: 2 },
          };
        return {
          content: `done ${call}`,
          toolCalls: [],
          usage: { promptTokens: 1, completionTokens: 2 },
        };
      },
    },
  });
const [t, bi, te, ac] = ['triage', 'billing', 'technical', 'account'].map(agent);
const relay = new b.HandoffBuilder({ name: 'relay', participants: [t, bi, te, ac] })
  .coordinator(t)
  .addHandoff(bi, [te])
  .addHandoff(te, [ac])
  .withMaxTurns(10)
  .withCheckpointing(store)
  .build();
const s = relay.session('relay-1');
for (let i = 0; i < 30; i++) await s.run(`turn ${i}`);
const team = new b.RoundRobinGroupChat(
  [
    agent('account'),
    new b.Agent({
      name: 'tooler',
      client: new b.ScriptedChatClient((_r, i) =>
        i % 2 === 0
          ? { content: null, toolCalls: [{ id: `x${i}`, name: 'add', arguments: '{"a":1,"b":2}' }] }
          : { content: 'three' },
      ),
      tools: [
        b.tool({
          name: 'add',
          description: 'adds',
          parameters: {
            type: 'object',
            properties: { a: { type: 'number' }, b: { type: 'number' } },
          },
          execute: ({ a, b: c }) => String(a + c),
        }),
      ],
    }),
  ],
  { maxTurns: 2, checkpointStore: store },
);
const ts = team.session('team-1');
await ts.run('first');
await ts.run('second');
await ts.loadState(await ts.saveState());
await ts.run('third');
const walk = (d) =>
  readdirSync(d).flatMap((f) =>
    statSync(join(d, f)).isDirectory() ? walk(join(d, f)) : [join(d, f)],
  );
if (process.env.SHOW)
  for (const f of walk(dir).sort())
    if (f.endsWith(process.env.SHOW)) console.log(readFileSync(f, 'utf8'));
// The record time ("at", from new Date()) and the checksum over it differ run to run: left out;
// leases (owner ids, clocks) too. Everything else must match byte for byte.
const norm = (t) => t.replace(/"at":"[^"]*"/g, '"at":""').replace(/^(\d+)=[0-9a-f]{8}/gm, '$1=');
let all = 0;
for (const f of walk(dir).sort()) {
  if (f.includes('.leases')) continue;
  const raw = readFileSync(f);
  all += raw.length;
  console.log(
    createHash('sha256')
      .update(norm(raw.toString('utf8')))
      .digest('hex')
      .slice(0, 16),
    raw.length,
    f.slice(dir.length),
  );
}
console.log('total bytes', all);

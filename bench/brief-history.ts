// Prompt tokens per specialist request on the relay (triage → billing → technical → account),
// after 20 user turns, with the handoffs' history "full" (every agent's turns) against "brief"
// (the customer's messages and the briefs only). Each handoff carries a brief `{reason}`; the last
// agent answers the customer. Tokens are estimated from characters (4 per token, plus 4 per
// message), over the messages and the tool schemas of each request, as a provider counts them.
//
// npx tsx bench/brief-history.ts [--turns 20]   (the requests of turn 21, after 20 turns)
import {
  Agent,
  type ChatClient,
  HandoffBuilder,
  type HistoryView,
  type ModelRequest,
  type ModelResult,
} from '../src/index.js';
import { NEXT, RELAY, userTurn } from './relay.js';

const usage = { promptTokens: 0, completionTokens: 0 };

/** Estimated prompt tokens of a request: its messages and its tools. */
function promptTokens(request: ModelRequest): number {
  let chars = JSON.stringify(request.tools ?? []).length;
  for (const m of request.messages) {
    chars += (m.content ?? '').length;
    if (m.role === 'assistant') chars += JSON.stringify(m.toolCalls ?? []).length;
  }
  return Math.ceil(chars / 4) + 4 * request.messages.length;
}

/** A relay model that hands off with a reason, or answers at the relay's end; it keeps counts. */
class BriefRelayModel implements ChatClient {
  readonly #agent: string;
  /** Estimated prompt tokens of each of its requests. */
  readonly prompts: number[] = [];
  #calls = 0;

  constructor(agent: string) {
    this.#agent = agent;
  }

  async create(request: ModelRequest): Promise<ModelResult> {
    this.prompts.push(promptTokens(request));
    const n = ++this.#calls;
    const next = NEXT[this.#agent];
    if (next !== undefined) {
      const reason = `Turn ${n}: ${this.#agent} checked its part; ${next} should check the rest.`;
      return {
        content: null,
        toolCalls: [
          {
            id: `${this.#agent}-${n}`,
            name: `handoff_to_${next}`,
            arguments: JSON.stringify({ reason }),
          },
        ],
        usage,
      };
    }
    return {
      content:
        `Your account, invoice and connection are checked (request ${n}): the invoice is paid, ` +
        'the connection is stable, and nothing else needs doing. Anything else?',
      toolCalls: [],
      usage,
    };
  }
}

/** The relay desk with every handoff's history set to `history`; returns its models. */
async function run(history: HistoryView, turns: number): Promise<BriefRelayModel[]> {
  const models = RELAY.map((name) => new BriefRelayModel(name));
  const [triage, billing, technical, account] = models.map(
    (client, i) =>
      new Agent({
        name: RELAY[i] as string,
        description: 'A relay agent.',
        instructions: 'Pass the request along the relay.',
        client,
      }),
  ) as [Agent, Agent, Agent, Agent];
  const workflow = new HandoffBuilder({
    name: 'relay',
    participants: [triage, billing, technical, account],
  })
    .coordinator(triage, { history })
    .addHandoff(billing, [technical], { history })
    .addHandoff(technical, [account], { history })
    .withMaxTurns(10)
    .build();
  const session = workflow.session(`brief-history-${history}`);
  for (let n = 1; n <= turns; n++) await session.run(userTurn(n));
  return models;
}

const turnsFlag = process.argv.indexOf('--turns');
const after = turnsFlag === -1 ? 20 : Number(process.argv[turnsFlag + 1]);
// The requests of the next user turn, with `after` turns of history behind them.
const turns = after + 1;
const full = await run('full', turns);
const brief = await run('brief', turns);
console.log(`Prompt tokens of each specialist's request after ${after} user turns (estimated):`);
console.log('| agent | full | brief | brief ÷ full |');
console.log('|---|---|---|---|');
let sumFull = 0;
let sumBrief = 0;
for (let i = 1; i < RELAY.length; i++) {
  const f = full[i]?.prompts.at(-1) ?? 0;
  const b = brief[i]?.prompts.at(-1) ?? 0;
  sumFull += f;
  sumBrief += b;
  console.log(`| ${RELAY[i]} | ${f} | ${b} | ${(b / f).toFixed(2)} |`);
}
console.log(`| all three | ${sumFull} | ${sumBrief} | ${(sumBrief / sumFull).toFixed(2)} |`);

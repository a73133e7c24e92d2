// A desk whose triage is a scripted classifier with known mistakes, for `baton eval routing`:
// it sends "password" to billing (a mistake), "crash" to nobody (it asks the user, a miss), and
// routes the rest by keyword. Specialists answer in one model call; `refund` needs the user first.
import {
  Agent,
  HandoffBuilder,
  type ModelRequest,
  ScriptedChatClient,
  scriptedText,
  scriptedToolCall,
} from '../../src/index.js';

const lastUser = (request: ModelRequest) =>
  String(request.messages.findLast((m) => m.role === 'user')?.content ?? '');

const usage = { promptTokens: 10, completionTokens: 3 };

const triage = new Agent({
  name: 'triage',
  client: new ScriptedChatClient((request) => {
    const text = lastUser(request);
    if (/invoice|refund|password/i.test(text)) return scriptedToolCall('handoff_to_billing');
    if (/internet|wifi/i.test(text)) return scriptedToolCall('handoff_to_technical');
    if (/locked/i.test(text)) return scriptedToolCall('handoff_to_account');
    return scriptedText('Can you say more?', usage);
  }),
});

const specialist = (name: string) =>
  new Agent({
    name,
    client: new ScriptedChatClient(() =>
      scriptedText(`${name} here.`, { promptTokens: 20, completionTokens: 5 }),
    ),
  });

export const workflow = new HandoffBuilder({
  name: 'routing-desk',
  participants: [triage, specialist('billing'), specialist('technical'), specialist('account')],
})
  .coordinator(triage)
  .build();

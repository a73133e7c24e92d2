import { EMPTY_STATE, type StateValue } from '../../agents/conversation-state.js';
import type { StateOption } from '../../agents/conversation-state.js';
import { resolveStateOption } from '../state-option.js';
import type { ChatAgent } from '../../agents/chat-agent.js';
import { checkGuardrails, type GuardrailSet } from '../../agents/guardrail.js';
import type { SessionState } from '../../engine/state/session-state.js';
import { threadOf } from '../../engine/state/state-thread.js';
import { type TeamCheckpointOptions, teamCheckpointing } from '../../engine/log/checkpointing.js';
import { toStopRule } from '../../engine/state/stop-rule.js';
import { NO_PROGRESS } from '../../engine/orchestration.js';
import { WorkflowRunner } from '../../engine/session/workflow-runner.js';
import { ConfigError } from '../../errors.js';
import type { LLMMessage } from '../../messages/llm-message.js';
import type { AgentMessage } from '../../messages/message.js';
import { isChatMessage } from '../../messages/message.js';
import { messageToText } from '../../messages/message-text.js';
import type { ChatClient } from '../../models/chat-client.js';
import { traceChat } from '../../observability/gen-ai-spans.js';
import type { TerminationCondition } from '../../termination/termination-condition.js';
import { teamMaxTurns } from './round-robin-group-chat.js';
import { edge } from '../flat-machine.js';
import { checkTeam, compileTeamMachine } from './team-machine.js';

/** Picks the next speaker from the thread; return nothing to let the model choose. */
export type SelectorFunc = (
  messages: readonly AgentMessage[],
  /** The conversation state. */
  ctx: { readonly state: StateValue },
) => string | null | undefined | Promise<string | null | undefined>;

/** Options of `SelectorGroupChat`; give `client`, `selectorFunc` or both. */
export interface SelectorGroupChatOptions extends TeamCheckpointOptions {
  /**
   * The conversation state: its zod schema and the value a new session starts with.
   * @default none: the state is `{}` and any JSON object is accepted
   */
  state?: StateOption;
  /** The model that picks the next speaker from the participants' names and descriptions. */
  client?: ChatClient;
  /** Picks the next speaker in code first; returning nothing falls back to the model. */
  selectorFunc?: SelectorFunc;
  terminationCondition?: TerminationCondition;
  /** Agent turns per run. @default unlimited */
  maxTurns?: number;
  /** Input and output guardrails. */
  guardrails?: GuardrailSet;
  /** May the previous speaker be picked again? @default false */
  allowRepeatedSpeaker?: boolean;
  /** Model attempts before falling back to the previous speaker. @default 3 */
  maxSelectorAttempts?: number;
  /** @default "selector" */
  name?: string;
}

/** The names in `text`, longest first so that `billing_lead` is not read as `billing`. */
function mentioned(text: string, candidates: readonly string[]): string[] {
  const found: string[] = [];
  let rest = text;
  for (const name of [...candidates].sort((a, b) => b.length - a.length)) {
    const pattern = new RegExp(`(^|[^A-Za-z0-9_-])${name.replace(/[-]/g, '\\-')}(?![A-Za-z0-9_-])`);
    if (pattern.test(rest)) {
      found.push(name);
      rest = rest.replace(new RegExp(name.replace(/[-]/g, '\\-'), 'g'), ' ');
    }
  }
  return found;
}

/**
 * A team whose next speaker is chosen before each turn (AutoGen's SelectorGroupChat): by
 * `selectorFunc` if it returns a name, else by a model asked to pick from the participants' names
 * and descriptions. An invalid pick is retried with feedback; after `maxSelectorAttempts` the
 * previous speaker (or the first participant) continues.
 *
 * @example
 * const team = new SelectorGroupChat([planner, searcher, analyst], { client, maxTurns: 12 });
 * @throws ConfigError without `client` and `selectorFunc`.
 */
export class SelectorGroupChat extends WorkflowRunner {
  constructor(participants: readonly ChatAgent[], options: SelectorGroupChatOptions = {}) {
    const names = checkTeam('SelectorGroupChat', participants);
    const { client, selectorFunc } = options;
    if (client === undefined && selectorFunc === undefined) {
      throw new ConfigError(
        'SelectorGroupChat needs a `client` (a model that picks the next speaker) or a `selectorFunc`.',
        { path: 'client' },
      );
    }
    const attempts = options.maxSelectorAttempts ?? 3;
    if (!Number.isInteger(attempts) || attempts < 1) {
      throw new ConfigError(`SelectorGroupChat needs maxSelectorAttempts >= 1, got ${attempts}.`, {
        path: 'maxSelectorAttempts',
      });
    }
    const name = options.name ?? 'selector';
    const roles = participants.map((a) => `${a.name}: ${a.description}`).join('\n');

    const select = async (
      state: SessionState,
      signal: AbortSignal | undefined,
    ): Promise<string> => {
      if (selectorFunc !== undefined) {
        const chosen = await selectorFunc(state.thread, { state: state.data ?? EMPTY_STATE });
        if (chosen !== null && chosen !== undefined) {
          if (!names.includes(chosen)) {
            throw new ConfigError(
              `SelectorGroupChat: selectorFunc returned "${chosen}", which is not a participant ` +
                `(${names.join(', ')}). Return one of their names, or nothing to let the model choose.`,
              { path: 'selectorFunc' },
            );
          }
          return chosen;
        }
      }
      const previous = state.lastSpeaker;
      const candidates =
        options.allowRepeatedSpeaker === true || previous === null || names.length === 1
          ? names
          : names.filter((n) => n !== previous);
      const only = single(candidates);
      if (only !== undefined) return only;
      if (client === undefined) return previous ?? names[0];
      const history = threadOf(state)
        .slice()
        .filter(isChatMessage)
        .map((m) => `${m.source}: ${messageToText(m)}`)
        .join('\n');
      const list = candidates.join(', ');
      const messages: LLMMessage[] = [
        {
          role: 'system',
          content:
            `You are in a role play game. The following roles are available:\n${roles}.\n` +
            `Read the following conversation. Then select the next role from [${list}] to play. Only return the role.\n\n` +
            `${history}\n\nRead the above conversation. Then select the next role from [${list}] to play. Only return the role.`,
        },
      ];
      for (let attempt = 0; attempt < attempts; attempt++) {
        const request = signal === undefined ? { messages } : { messages, signal };
        const result = await traceChat(client, messages, () => client.create(request));
        const answer = result.content ?? '';
        const picked = mentioned(answer, candidates);
        const one = single(picked);
        if (one !== undefined) return one;
        messages.push(
          { role: 'assistant', content: answer },
          {
            role: 'user',
            content:
              picked.length === 0
                ? `No valid name was mentioned. Please select from: [${list}].`
                : `Expected exactly one name to be mentioned. Please select only one from: [${list}].`,
          },
        );
      }
      return previous ?? names[0];
    };

    super(
      {
        name,
        machine: compileTeamMachine({
          id: name,
          agents: names,
          transitions: () => ({ next: edge('selecting', 'next') }),
          selecting: true,
        }),
        participants: new Map(participants.map((a) => [a.name, a])),
        maxTurns: teamMaxTurns('SelectorGroupChat', options.maxTurns),
        guardrails: checkGuardrails(options.guardrails, 'SelectorGroupChat'),
        stopRule:
          options.terminationCondition === undefined
            ? undefined
            : toStopRule(options.terminationCondition),
        descriptor: { kind: 'selector', participants: names },
        progressSchema: NO_PROGRESS,
        ...resolveStateOption('SelectorGroupChat', options.state),
        turnOptions: () => ({}),
        routeResponse: () => ({ event: { type: 'next' } }),
        routeUserInput: () => ({ type: 'message' }),
        selectSpeaker: select,
      },
      teamCheckpointing('SelectorGroupChat', options),
    );
  }
}

/** The one name of `list`, or undefined when it has none or several. */
function single(list: readonly string[]): string | undefined {
  return list.length === 1 ? list[0] : undefined;
}

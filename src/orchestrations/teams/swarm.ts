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
import type { AgentMessage, HandoffMessage } from '../../messages/message.js';
import type { MessageList } from '../../messages/thread.js';
import { HandoffTermination } from '../../termination/message-conditions.js';
import type { TerminationCondition } from '../../termination/termination-condition.js';
import { fieldOf } from '../../unknown-value.js';
import { teamMaxTurns } from './round-robin-group-chat.js';
import { edge, type Transitions } from '../flat-machine.js';
import { checkTeam, compileTeamMachine, type TeamEvent } from './team-machine.js';
import { checkOwnHandoffs } from '../own-handoffs.js';
import { checkBrief, type HandoffBrief } from '../../agents/handoff.js';

/** Options of `Swarm`. */
export interface SwarmOptions extends TeamCheckpointOptions {
  /**
   * The conversation state: its zod schema and the value a new session starts with.
   * @default none: the state is `{}` and any JSON object is accepted
   */
  state?: StateOption;
  /** When the team stops, e.g. `new HandoffTermination('user')` to ask the user. */
  terminationCondition?: TerminationCondition;
  /** Agent turns per run. @default unlimited */
  maxTurns?: number;
  /** Input and output guardrails. */
  guardrails?: GuardrailSet;
  /** @default "swarm" */
  name?: string;
  /**
   * What the participants' own handoffs carry when they have no brief of their own (a zod
   * object: the tools' parameters, checked, recorded on the `HandoffMessage` and given to the
   * target as `ctx.handoff.brief`). @default none: handoffs without parameters
   */
  handoffBrief?: HandoffBrief | false;
}

/** The targets of the `HandoffTermination`s in `condition`: handoffs that stop the team. */
function handoffTerminationTargets(condition: TerminationCondition | undefined): string[] {
  if (condition instanceof HandoffTermination) return [condition.target];
  const children = fieldOf(condition, 'conditions');
  if (!Array.isArray(children)) return [];
  return children.flatMap((c: TerminationCondition) => handoffTerminationTargets(c));
}

function latestHandoff(messages: MessageList): HandoffMessage | undefined {
  for (let i = messages.length - 1; i >= 0; i--) {
    const m = messages.at(i);
    if (m?.type === 'HandoffMessage') return m;
  }
  return undefined;
}

/**
 * A team whose speaker is the target of the latest `HandoffMessage` (AutoGen's Swarm): agents pass
 * control with their own `handoffs`, and the first participant starts. An agent that answers
 * without handing off keeps the floor — stop it with `maxTurns` or a `TextMessageTermination`.
 *
 * A handoff to someone outside the team (e.g. `"user"`, stopped by `HandoffTermination('user')`)
 * is resumed with `run(handoffMessage({ source: 'user', target: <participant>, content }))`.
 *
 * @example
 * const team = new Swarm([travelAgent, flightsRefunder], {
 *   terminationCondition: new HandoffTermination('user').or(new TextMentionTermination('TERMINATE')),
 * });
 */
export class Swarm extends WorkflowRunner {
  constructor(participants: readonly ChatAgent[], options: SwarmOptions = {}) {
    const names = checkTeam('Swarm', participants);
    const name = options.name ?? 'swarm';
    checkOwnHandoffs(
      `Swarm "${name}"`,
      participants,
      new Set(['user', ...handoffTerminationTargets(options.terminationCondition)]),
    );
    const first = names[0];
    const brief =
      options.handoffBrief === false
        ? undefined
        : checkBrief(`Swarm "${name}": handoffBrief`, options.handoffBrief);
    const turn = brief === undefined ? {} : { handoffBrief: brief };
    const machine = compileTeamMachine({
      id: name,
      agents: names,
      transitions: (agent) => {
        const on: Transitions<TeamEvent> = {};
        for (const t of names) if (t !== agent) on[`handoff.${t}`] = edge(t, 'handoff');
        on.leaves = edge('awaitingInput', 'leaves');
        on.continue = edge(agent, 'continues');
        return on;
      },
    });
    const outside = (target: string) =>
      new Error(
        `Swarm: the latest handoff targets "${target}", which is not a participant ` +
          `(${names.map((n) => `"${n}"`).join(', ')}). Resume with ` +
          'run(handoffMessage({ source: "user", target: <participant>, content })).',
      );
    // A handoff in the new input decides; else the speaker a stop interrupted continues; else the
    // target of the thread's latest handoff, which must be a participant.
    const speakerFor = (messages: readonly AgentMessage[], state: SessionState): string => {
      const fromInput = latestHandoff(messages);
      if (fromInput !== undefined) {
        if (!names.includes(fromInput.target)) throw outside(fromInput.target);
        return fromInput.target;
      }
      if (state.resumeState !== null && names.includes(state.resumeState)) return state.resumeState;
      const fromThread = latestHandoff(threadOf(state));
      if (fromThread !== undefined && !names.includes(fromThread.target))
        throw outside(fromThread.target);
      return fromThread?.target ?? first;
    };
    super(
      {
        name,
        machine,
        participants: new Map(participants.map((a) => [a.name, a])),
        maxTurns: teamMaxTurns('Swarm', options.maxTurns),
        guardrails: checkGuardrails(options.guardrails, 'Swarm'),
        stopRule:
          options.terminationCondition === undefined
            ? undefined
            : toStopRule(options.terminationCondition),
        descriptor: { kind: 'swarm', participants: names },
        progressSchema: NO_PROGRESS,
        ...resolveStateOption('Swarm', options.state),
        turnOptions: () => turn,
        routeResponse: (agent, response) => {
          const message = response.chatMessage;
          // An agent that answers without handing off (or hands off to itself) keeps the floor.
          const event: TeamEvent =
            message.type !== 'HandoffMessage' || message.target === agent
              ? { type: 'continue' }
              : names.includes(message.target)
                ? { type: `handoff.${message.target}` }
                : { type: 'leaves' };
          return { event };
        },
        routeUserInput: (state, messages) => ({ type: `reply.${speakerFor(messages, state)}` }),
        checkWaiting: (state) => {
          const handoff = latestHandoff(threadOf(state));
          if (handoff !== undefined && !names.includes(handoff.target))
            throw outside(handoff.target);
        },
      },
      teamCheckpointing('Swarm', options),
    );
  }
}

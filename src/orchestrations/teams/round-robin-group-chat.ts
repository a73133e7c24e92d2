import type { StateOption } from '../../agents/conversation-state.js';
import { resolveStateOption } from '../state-option.js';
import type { ChatAgent } from '../../agents/chat-agent.js';
import { checkGuardrails, type GuardrailSet } from '../../agents/guardrail.js';
import { type TeamCheckpointOptions, teamCheckpointing } from '../../engine/log/checkpointing.js';
import { toStopRule } from '../../engine/state/stop-rule.js';
import { NO_PROGRESS } from '../../engine/orchestration.js';
import { WorkflowRunner } from '../../engine/session/workflow-runner.js';
import { ConfigError } from '../../errors.js';
import type { TerminationCondition } from '../../termination/termination-condition.js';
import { edge } from '../flat-machine.js';
import { checkTeam, compileTeamMachine } from './team-machine.js';

/** Options of `RoundRobinGroupChat`. */
export interface RoundRobinGroupChatOptions extends TeamCheckpointOptions {
  /**
   * The conversation state: its zod schema and the value a new session starts with.
   * @default none: the state is `{}` and any JSON object is accepted
   */
  state?: StateOption;
  /** When the team stops; without it (and without `maxTurns`) the team runs until aborted. */
  terminationCondition?: TerminationCondition;
  /** Agent turns per run. @default unlimited */
  maxTurns?: number;
  /** Input and output guardrails. */
  guardrails?: GuardrailSet;
  /** @default "round_robin" */
  name?: string;
}

/** Checks a team's `maxTurns` option. */
export function teamMaxTurns(team: string, maxTurns: number | undefined): number {
  if (maxTurns === undefined) return Number.POSITIVE_INFINITY;
  if (!Number.isInteger(maxTurns) || maxTurns < 1) {
    throw new ConfigError(`${team} needs \`maxTurns\` to be a positive integer, got ${maxTurns}.`, {
      path: 'maxTurns',
    });
  }
  return maxTurns;
}

/**
 * A team whose participants speak in turn, each seeing the whole thread (AutoGen's
 * RoundRobinGroupChat). The next speaker survives runs and new tasks; only `reset()` starts over
 * at the first participant.
 *
 * @example
 * const team = new RoundRobinGroupChat([writer, critic], {
 *   terminationCondition: new MaxMessageTermination(10).or(new TextMentionTermination('APPROVE')),
 * });
 * const result = await team.run('Write a haiku about autumn.');
 */
export class RoundRobinGroupChat extends WorkflowRunner {
  constructor(participants: readonly ChatAgent[], options: RoundRobinGroupChatOptions = {}) {
    const names = checkTeam('RoundRobinGroupChat', participants);
    const name = options.name ?? 'round_robin';
    const machine = compileTeamMachine({
      id: name,
      agents: names,
      transitions: (agent) => ({
        next: edge(names[(names.indexOf(agent) + 1) % names.length] ?? names[0], 'next'),
      }),
    });
    super(
      {
        name,
        machine,
        participants: new Map(participants.map((a) => [a.name, a])),
        maxTurns: teamMaxTurns('RoundRobinGroupChat', options.maxTurns),
        guardrails: checkGuardrails(options.guardrails, 'RoundRobinGroupChat'),
        stopRule:
          options.terminationCondition === undefined
            ? undefined
            : toStopRule(options.terminationCondition),
        descriptor: { kind: 'round_robin', participants: names },
        progressSchema: NO_PROGRESS,
        ...resolveStateOption('RoundRobinGroupChat', options.state),
        turnOptions: () => ({}),
        routeResponse: () => ({ event: { type: 'next' } }),
        // A new task goes to whoever is next: the first speaker, or where a stopped run left off.
        routeUserInput: (state) => ({ type: `reply.${state.resumeState ?? names[0]}` }),
      },
      teamCheckpointing('RoundRobinGroupChat', options),
    );
  }
}

import type { ZodType } from 'zod';

import type { ChatAgent } from '../../agents/chat-agent.js';
import { ConfigError } from '../../errors.js';
import { checkParticipantName } from '../participant-name.js';
import type { LazyRoutingOptions, ResolverOptions } from './handoff-options.js';
import type { Router } from './handoff-router.js';
import type { HandoffTopology } from './handoff-topology.js';

/** Who routes in the `classifying` state: the resolver, else lazy routing's classifier. */
export function resolveRouter(input: {
  name: string;
  topology: HandoffTopology;
  resolver: ResolverOptions<ZodType> | undefined;
  lazy: LazyRoutingOptions['classifier'];
  lazyOn: boolean;
}): Router | undefined {
  const { topology } = input;
  const named = (agent: ChatAgent | string | undefined, what: string): ChatAgent => {
    if (agent === undefined) agent = topology.coordinator;
    if (typeof agent !== 'string') {
      checkParticipantName(`HandoffBuilder "${input.name}": ${what}`, agent.name, what);
      const same = topology.participants.get(agent.name);
      if (same !== undefined && same !== agent) {
        throw new ConfigError(
          `${what}: agent "${agent.name}" has the name of another participant of workflow "${input.name}". Rename it.`,
          { path: what },
        );
      }
      return agent;
    }
    const found = topology.participants.get(agent);
    if (found === undefined) {
      throw new ConfigError(
        `${what}: "${agent}" is not a participant of workflow "${input.name}". Fix the name.`,
        {
          path: what,
        },
      );
    }
    return found;
  };
  if (input.resolver !== undefined) {
    return {
      kind: 'resolver',
      agent: named(input.resolver.agent, 'withResolver()'),
      schema: input.resolver.schema,
      resolve: input.resolver.resolve as (output: never) => string | null,
    };
  }
  if (!input.lazyOn) return undefined;
  const classifier = input.lazy;
  if (typeof classifier === 'function') return { kind: 'function', classify: classifier };
  return { kind: 'agent', agent: named(classifier, 'withUserReplyRouting("lazy"): classifier') };
}

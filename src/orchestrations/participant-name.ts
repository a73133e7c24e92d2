import { AGENT_NAME } from '../agents/agent-config.js';
import { ConfigError } from '../errors.js';

/**
 * Checks a participant's name against the one naming rule, for every orchestration
 * (HandoffBuilder, the teams, GraphBuilder, asAgent). A name is a machine state, an object key, a
 * tool name suffix and part of a selector's pattern: `__proto__` or `c++` would break one of them
 * mid-run, so the workflow refuses it when it is built.
 *
 * @throws ConfigError naming `owner`, the agent and the rule.
 */
export function checkParticipantName(owner: string, name: unknown, path: string): string {
  if (typeof name === 'string' && AGENT_NAME.test(name)) return name;
  throw new ConfigError(
    `${owner}: agent name ${JSON.stringify(name) ?? String(name)} does not match ` +
      `${String(AGENT_NAME)} (a letter, then up to 63 letters, digits, "_" or "-"). Rename the agent.`,
    { path },
  );
}

import { freeze } from 'immer';

import { type StateOption, stateProblem } from '../agents/conversation-state.js';
import { isZodSchema } from '../agents/tool.js';
import { ConfigError } from '../errors.js';
import { isRecord } from '../unknown-value.js';
import type { Orchestration } from '../engine/orchestration.js';

/**
 * The `state` option of a workflow or team, checked: a zod `schema` and an `initial`
 * value that passes it. Without the option the state starts as `{}` and takes any JSON object.
 * @throws ConfigError naming the field of `initial` the schema refuses.
 */
export function resolveStateOption(
  where: string,
  option: StateOption | undefined,
): Pick<Orchestration, 'state'> {
  if (option === undefined) return {};
  if (option === null || typeof option !== 'object') {
    throw new ConfigError(
      `${where}: state must be { schema, initial }, got ${JSON.stringify(option)}.`,
      {
        path: 'state',
      },
    );
  }
  const { schema, initial } = option;
  if (!isZodSchema(schema)) {
    throw new ConfigError(
      `${where}: state.schema must be a zod schema of the conversation state (e.g. z.object({ ... })).`,
      { path: 'state.schema' },
    );
  }
  const problem = stateProblem(schema, initial);
  if (problem !== undefined || !isRecord(initial)) {
    const text = problem?.text ?? '(root): the state must be a JSON object';
    throw new ConfigError(
      `${where}: state.initial is invalid at ${text}. Give an initial value the schema accepts.`,
      { path: problem?.path === '(root)' ? 'state.initial' : `state.initial.${problem?.path}` },
    );
  }
  const { version = 1, migrate } = option;
  if (!Number.isInteger(version) || version < 1) {
    throw new ConfigError(
      `${where}: state.version must be a positive integer, got ${JSON.stringify(version)}.`,
      { path: 'state.version' },
    );
  }
  if (migrate !== undefined && typeof migrate !== 'function') {
    throw new ConfigError(
      `${where}: state.migrate must be a function (old, from) => newState, got ${typeof migrate}.`,
      { path: 'state.migrate' },
    );
  }
  const initialCopy = freeze(structuredClone(initial), true);
  return {
    state: { schema, initial: initialCopy, version, ...(migrate === undefined ? {} : { migrate }) },
  };
}

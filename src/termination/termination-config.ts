import { z } from 'zod';

import { ConfigError } from '../errors.js';
import { firstIssue } from '../zod-issues.js';
import { MaxMessageTermination, TokenUsageTermination } from './budget-conditions.js';
import { CostTermination } from './cost-termination.js';
import { ExternalTermination, TimeoutTermination } from './control-conditions.js';
import {
  FunctionCallTermination,
  HandoffTermination,
  SourceMatchTermination,
  StopMessageTermination,
  TextMentionTermination,
  TextMessageTermination,
} from './message-conditions.js';
import {
  AndTerminationCondition,
  OrTerminationCondition,
  type TerminationCondition,
} from './termination-condition.js';
import type { TerminationConfig } from './termination-config-types.js';

const name = z.string().min(1);
const names = z.array(name).min(1);
const count = z.number().int().nonnegative();

const TerminationConfigSchema: z.ZodType<TerminationConfig> = z.lazy(() =>
  z.discriminatedUnion('type', [
    z.strictObject({
      type: z.literal('MaxMessageTermination'),
      maxMessages: count.min(1),
      includeAgentEvent: z.boolean().default(false),
    }),
    z.strictObject({
      type: z.literal('TextMentionTermination'),
      text: name,
      sources: names.optional(),
    }),
    z
      .strictObject({
        type: z.literal('TokenUsageTermination'),
        maxTotalToken: count.optional(),
        maxPromptToken: count.optional(),
        maxCompletionToken: count.optional(),
      })
      .refine(
        (c) =>
          c.maxTotalToken !== undefined ||
          c.maxPromptToken !== undefined ||
          c.maxCompletionToken !== undefined,
        'needs at least one of maxTotalToken, maxPromptToken, maxCompletionToken',
      ),
    z.strictObject({
      type: z.literal('TimeoutTermination'),
      timeoutSeconds: z.number().positive(),
    }),
    z.strictObject({ type: z.literal('HandoffTermination'), target: name }),
    z.strictObject({ type: z.literal('SourceMatchTermination'), sources: names }),
    z.strictObject({ type: z.literal('ExternalTermination') }),
    z.strictObject({ type: z.literal('StopMessageTermination') }),
    z.strictObject({ type: z.literal('TextMessageTermination'), source: name.optional() }),
    z.strictObject({ type: z.literal('FunctionCallTermination'), functionName: name }),
    z.strictObject({
      type: z.literal('CostTermination'),
      maxUsd: z.number().positive().finite(),
      prices: z
        .record(
          z.string(),
          z.strictObject({
            inputPerMillion: z.number().nonnegative().finite(),
            outputPerMillion: z.number().nonnegative().finite(),
          }),
        )
        .refine((p) => Object.keys(p).length > 0, 'needs at least one price'),
      onExhausted: z.enum(['stop', 'ask']).optional(),
      reserveOutputTokens: count.optional(),
    }),
    z.strictObject({
      type: z.literal('OrTerminationCondition'),
      conditions: z.array(TerminationConfigSchema).min(1),
    }),
    z.strictObject({
      type: z.literal('AndTerminationCondition'),
      conditions: z.array(TerminationConfigSchema).min(1),
    }),
  ]),
) as z.ZodType<TerminationConfig>;

function build(config: TerminationConfig): TerminationCondition {
  switch (config.type) {
    case 'MaxMessageTermination':
      return new MaxMessageTermination(config.maxMessages, {
        includeAgentEvent: config.includeAgentEvent,
      });
    case 'TextMentionTermination':
      return new TextMentionTermination(
        config.text,
        config.sources === undefined ? {} : { sources: config.sources },
      );
    case 'TokenUsageTermination': {
      const { type: _type, ...limits } = config;
      return new TokenUsageTermination(limits);
    }
    case 'TimeoutTermination':
      return new TimeoutTermination(config.timeoutSeconds);
    case 'HandoffTermination':
      return new HandoffTermination(config.target);
    case 'SourceMatchTermination':
      return new SourceMatchTermination(config.sources);
    case 'ExternalTermination':
      return new ExternalTermination();
    case 'StopMessageTermination':
      return new StopMessageTermination();
    case 'TextMessageTermination':
      return new TextMessageTermination(config.source);
    case 'FunctionCallTermination':
      return new FunctionCallTermination(config.functionName);
    case 'CostTermination': {
      const { type: _type, ...options } = config;
      return new CostTermination(options);
    }
    case 'OrTerminationCondition':
      return new OrTerminationCondition(config.conditions.map(build));
    case 'AndTerminationCondition':
      return new AndTerminationCondition(config.conditions.map(build));
  }
}

/** How many `Or`/`And` levels `terminationFromJSON` accepts; deeper input is refused up front. */
export const MAX_CONDITION_DEPTH = 64;

/**
 * Refuses combinators nested deeper than `MAX_CONDITION_DEPTH` before zod (and `build`) recurse
 * into them: 10,000 levels of hostile input would otherwise overflow the stack. Iterative, so the
 * check itself cannot overflow.
 */
function checkDepth(json: unknown): void {
  const pending: { value: unknown; depth: number }[] = [{ value: json, depth: 0 }];
  for (let next = pending.pop(); next !== undefined; next = pending.pop()) {
    const value = next.value;
    if (typeof value !== 'object' || value === null || !('conditions' in value)) continue;
    const conditions = value.conditions;
    if (!Array.isArray(conditions)) continue;
    if (next.depth + 1 > MAX_CONDITION_DEPTH) {
      throw new ConfigError(
        `terminationFromJSON(): the condition is nested more than ${MAX_CONDITION_DEPTH} levels ` +
          'deep. Flatten it: an OrTerminationCondition or AndTerminationCondition takes any ' +
          'number of conditions in one list.',
      );
    }
    for (const child of conditions) pending.push({ value: child, depth: next.depth + 1 });
  }
}

/**
 * Rebuilds a termination condition from its `toJSON()` form (e.g. read from a config file).
 * @example terminationFromJSON({ type: 'MaxMessageTermination', maxMessages: 10, includeAgentEvent: false })
 * @throws ConfigError naming the bad path (`conditions[1].maxMessages`) when the JSON is invalid,
 * or when combinators are nested more than `MAX_CONDITION_DEPTH` (64) levels deep.
 */
export function terminationFromJSON(json: unknown): TerminationCondition {
  checkDepth(json);
  const parsed = TerminationConfigSchema.safeParse(json);
  if (!parsed.success) {
    const issue = firstIssue(parsed.error);
    throw new ConfigError(
      `terminationFromJSON(): invalid termination condition at ${issue.text}. ` +
        'Use the form toJSON() produces, e.g. {"type":"MaxMessageTermination","maxMessages":10}; ' +
        'FunctionalTermination and custom conditions have no JSON form.',
      { path: issue.path },
    );
  }
  return build(parsed.data);
}

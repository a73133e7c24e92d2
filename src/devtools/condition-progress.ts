/** How close one termination condition (or a combination) is to firing, for the devtools page. */
export interface ConditionProgress {
  /** The condition's class name (`type` of its `toJSON()`). */
  readonly type: string;
  /** What it waits for, with the count where one is kept: `messages 7/20`, `tokens 1,840/5,000`. */
  readonly label: string;
  /** True once it has fired (a fired condition is reset when its session stops). */
  readonly fired: boolean;
  /** How far along it is, from 0 to 1, where that can be computed. */
  readonly ratio?: number;
  /** The children of an `OrTerminationCondition` / `AndTerminationCondition`. */
  readonly children?: readonly ConditionProgress[];
}

/** What this module needs of a condition: its config, and its children when it combines others. */
interface ConditionLike {
  toJSON(): unknown;
  readonly conditions?: readonly unknown[];
}

type Json = Record<string, unknown>;

const isObject = (value: unknown): value is Json => typeof value === 'object' && value !== null;
const num = (value: unknown): number => (typeof value === 'number' ? value : 0);
const count = (n: number) => n.toLocaleString('en-US');
const ratio = (value: number, limit: number) => (limit > 0 ? Math.min(1, value / limit) : 1);

/** True for an object that looks like a `TerminationCondition` (from any copy of the library). */
export function isConditionLike(value: unknown): value is ConditionLike {
  return (
    isObject(value) &&
    typeof value.toJSON === 'function' &&
    typeof value.check === 'function' &&
    typeof value.saveState === 'function'
  );
}

/**
 * Reads how close `condition` is to firing in one session, from its `toJSON()` (the limits) and
 * the session's saved condition state (the counters, as `saveState()` wrote them). A condition
 * that cannot say (a `FunctionalTermination`, a custom class without `toJSON()`) is reported
 * with its class name and no count.
 */
export function conditionProgress(
  condition: unknown,
  state: unknown,
  now: number = Date.now(),
): ConditionProgress {
  const name = isObject(condition) ? condition.constructor.name : typeof condition;
  const children = isObject(condition) ? condition.conditions : undefined;
  if (Array.isArray(children)) {
    const childStates = isObject(state) && Array.isArray(state.conditions) ? state.conditions : [];
    // `a.or(b).or(c)` nests: show one flat list of the same combinator.
    const parts = children
      .map((c, i) => conditionProgress(c, childStates[i], now))
      .flatMap((p) => (p.type === name && p.children !== undefined ? p.children : [p]));
    const and = name === 'AndTerminationCondition';
    return {
      type: name,
      label: and ? 'all of' : 'any of',
      fired: and ? parts.every((p) => p.fired) : parts.some((p) => p.fired),
      children: parts,
    };
  }
  let config: unknown;
  try {
    config = isConditionLike(condition) ? condition.toJSON() : undefined;
  } catch {
    config = undefined;
  }
  const saved = isObject(state) ? state : {};
  if (!isObject(config) || typeof config.type !== 'string') {
    return { type: name, label: `${name} (not computable)`, fired: saved.terminated === true };
  }
  return leafProgress(config.type, config, saved, now);
}

function leafProgress(type: string, config: Json, state: Json, now: number): ConditionProgress {
  const fired = state.terminated === true;
  switch (type) {
    case 'MaxMessageTermination': {
      const seen = num(state.count);
      const max = num(config.maxMessages);
      const events = config.includeAgentEvent === true ? ' (with events)' : '';
      return {
        type,
        label: `messages ${count(seen)}/${count(max)}${events}`,
        fired: seen >= max,
        ratio: ratio(seen, max),
      };
    }
    case 'TokenUsageTermination': {
      const prompt = num(state.promptTokens);
      const completion = num(state.completionTokens);
      const limits: [string, number, unknown][] = [
        ['tokens', prompt + completion, config.maxTotalToken],
        ['prompt tokens', prompt, config.maxPromptToken],
        ['completion tokens', completion, config.maxCompletionToken],
      ];
      const used = limits.filter(([, , limit]) => typeof limit === 'number');
      return {
        type,
        label: used
          .map(([what, n, limit]) => `${what} ${count(n)}/${count(num(limit))}`)
          .join(', '),
        fired,
        ratio: Math.max(0, ...used.map(([, n, limit]) => ratio(n, num(limit)))),
      };
    }
    case 'TimeoutTermination': {
      const limit = num(config.timeoutSeconds);
      const started = typeof state.startedAt === 'number' ? state.startedAt : null;
      const elapsed = started === null ? 0 : Math.min(limit, (now - started) / 1000);
      return {
        type,
        label: `time ${Math.floor(elapsed)}s/${limit}s${started === null ? ' (not started)' : ''}`,
        fired,
        ratio: ratio(elapsed, limit),
      };
    }
    case 'CostTermination': {
      const spent = num(state.spentUsd);
      const limit = num(config.maxUsd) + num(state.grantedUsd);
      return {
        type,
        label: `spent $${spent.toFixed(4)}/$${limit.toFixed(2)}`,
        fired: false,
        ratio: ratio(spent, limit),
      };
    }
    default:
      return { type, label: describe(config), fired };
  }
}

/** What a condition without a counter waits for, in a few words. */
function describe(config: Json): string {
  const list = (value: unknown) => (Array.isArray(value) ? value.join(', ') : String(value));
  switch (config.type) {
    case 'TextMentionTermination':
      return `text '${String(config.text)}'${config.sources === undefined ? '' : ` from ${list(config.sources)}`}`;
    case 'HandoffTermination':
      return `handoff to ${String(config.target)}`;
    case 'SourceMatchTermination':
      return `an answer from ${list(config.sources)}`;
    case 'ExternalTermination':
      return 'external stop';
    case 'StopMessageTermination':
      return 'a stop message';
    case 'TextMessageTermination':
      return `a text message${config.source === undefined ? '' : ` from ${String(config.source)}`}`;
    case 'FunctionCallTermination':
      return `${String(config.functionName)}() executed`;
    default:
      return String(config.type);
  }
}

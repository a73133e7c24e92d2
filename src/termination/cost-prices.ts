import { ConfigError } from '../errors.js';
import type { Usage } from '../messages/message.js';
import { fieldOf } from '../unknown-value.js';
import { showValue } from './validate-options.js';

/** What a model costs, in US dollars per million tokens. */
export interface ModelPrice {
  readonly inputPerMillion: number;
  readonly outputPerMillion: number;
}

/**
 * Prices by model name, as the model client names it (`ChatClient.model`); `"*"` prices any
 * other model (and a client that names none).
 */
export type ModelPrices = Readonly<Record<string, ModelPrice>>;

/** The cost in US dollars of `usage` on `model` (undefined when the client names none). */
export type PriceFunction = (usage: Usage, model: string | undefined) => number;

/** A copy of `prices`, checked: every entry has two non-negative finite prices. */
export function checkPrices(owner: string, prices: unknown): ModelPrices {
  if (typeof prices !== 'object' || prices === null || Array.isArray(prices)) {
    throw new ConfigError(
      `${owner} needs \`prices\` to be an object of model names to ` +
        `{ inputPerMillion, outputPerMillion }, got ${showValue(prices)}.`,
      { path: 'prices' },
    );
  }
  const copy: Record<string, ModelPrice> = {};
  for (const [model, price] of Object.entries(prices)) {
    const at = `prices.${model}`;
    if (typeof price !== 'object' || price === null) {
      throw new ConfigError(
        `${owner}: \`${at}\` must be { inputPerMillion, outputPerMillion }, got ${showValue(price)}.`,
        { path: at },
      );
    }
    const field = (name: 'inputPerMillion' | 'outputPerMillion'): number => {
      const value = fieldOf(price, name);
      if (typeof value !== 'number' || !Number.isFinite(value) || value < 0) {
        throw new ConfigError(
          `${owner}: \`${at}.${name}\` must be a non-negative number of US dollars per million ` +
            `tokens, got ${showValue(value)}.`,
          { path: `${at}.${name}` },
        );
      }
      return value;
    };
    copy[model] = {
      inputPerMillion: field('inputPerMillion'),
      outputPerMillion: field('outputPerMillion'),
    };
  }
  if (Object.keys(copy).length === 0) {
    throw new ConfigError(
      `${owner} needs at least one price in \`prices\` (a model name, or "*" for any model).`,
      { path: 'prices' },
    );
  }
  return copy;
}

/**
 * The price of `model` in `prices` (its own, else `"*"`).
 * @throws ConfigError naming the model when neither is there.
 */
export function priceOf(owner: string, prices: ModelPrices, model: string | undefined): ModelPrice {
  const own = model === undefined || !Object.hasOwn(prices, model) ? undefined : prices[model];
  const price = own ?? (Object.hasOwn(prices, '*') ? prices['*'] : undefined);
  if (price !== undefined) return price;
  if (model === undefined) {
    throw new ConfigError(
      `${owner} has no price for a model client that names no model. Give the client a model ` +
        'name, or add a "*" price for any other model to `prices`.',
      { path: 'prices.*' },
    );
  }
  throw new ConfigError(
    `${owner} has no price for model "${model}". Add "${model}" to \`prices\`, or a "*" price ` +
      'for any other model.',
    { path: `prices.${model}` },
  );
}

/** The cost of `usage` at `price`, in US dollars. */
export function costAt(price: ModelPrice, usage: Usage): number {
  return (
    (usage.promptTokens * price.inputPerMillion + usage.completionTokens * price.outputPerMillion) /
    1_000_000
  );
}

/**
 * An amount of US dollars as a stop reason shows it: two decimals (`$0.50`), or as many as a
 * budget under a cent or between cents needs (`$0.005`, `$0.125`), at most six (below a
 * millionth, JavaScript's own form: `$1e-7`).
 */
export function formatUsd(amount: number): string {
  const cents = amount * 100;
  if (Math.abs(cents - Math.round(cents)) < 1e-6) return `$${amount.toFixed(2)}`;
  const text = amount.toFixed(6).replace(/0+$/, '');
  return text.endsWith('.') ? `$${String(amount)}` : `$${text}`;
}

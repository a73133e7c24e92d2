import type { CheckpointStore } from '../checkpoint/checkpoint-store.js';
import { MemoryCheckpointStore } from '../checkpoint/memory-checkpoint-store.js';
import { SpendCounters } from '../checkpoint/spend-counters.js';
import type { CallLimit } from '../engine/run/call-limit.js';
import { ConfigError } from '../errors.js';
import { isRecord } from '../unknown-value.js';
import { stopMessage } from '../messages/message-factories.js';
import type { ModelCallPlan } from '../termination/model-call.js';
import { formatUsd } from '../termination/cost-prices.js';

/** Budgets in money across sessions: `serve()`'s and `startWorker()`'s `budgets`. */
export interface BudgetsOptions {
  /**
   * The most a tenant (the principal that owns a session) may spend on model calls in a day
   * (UTC), in US dollars, counted in the workflow's store so every process and worker shares it.
   * The session's `CostTermination` prices the calls. A run that would pass it pauses with a
   * `"budget"` request; approving it with `amountUsd` gives the tenant that much more today.
   */
  perTenantPerDayUsd?: number;
}

/**
 * `budgets` checked: the daily cap, or undefined without one.
 * @throws ConfigError naming the field.
 */
export function checkBudgets(where: string, budgets: unknown): number | undefined {
  if (budgets === undefined) return undefined;
  const cap = isRecord(budgets) ? budgets.perTenantPerDayUsd : budgets;
  if (cap === undefined && isRecord(budgets)) return undefined;
  if (typeof cap !== 'number' || !Number.isFinite(cap) || cap <= 0) {
    throw new ConfigError(
      `${where}: \`budgets.perTenantPerDayUsd\` must be a positive number of US dollars, got ` +
        `${JSON.stringify(cap) ?? String(cap)}.`,
      { path: 'budgets.perTenantPerDayUsd' },
    );
  }
  return cap;
}

const MICRO = 1_000_000;

/** Dollars as whole micro-dollars, rounded up: a reservation never holds less than it should. */
function micro(usd: number): number {
  return Math.ceil(usd * MICRO - 1e-6);
}

/**
 * The daily caps of tenants as a run's call limit: the limit of session `sessionId`'s run, its
 * tenant found by `ownerOf`, its counters in `store` (in this process without one). `clock` gives
 * the time whose UTC day a call counts in.
 */
export function tenantDayLimits(
  store: CheckpointStore | undefined,
  capUsd: number,
  ownerOf: (sessionId: string) => Promise<string | undefined>,
  clock: () => number = Date.now,
): (sessionId: string) => CallLimit {
  const counters = new SpendCounters(store ?? new MemoryCheckpointStore());
  const cap = micro(capUsd);
  return (sessionId) => {
    // Each call counts in the day it was admitted, even when it settles after midnight.
    const held = new Map<ModelCallPlan, { key: string; reserved: number }>();
    let tenant: Promise<string> | undefined;
    const keyOf = async () => {
      tenant ??= ownerOf(sessionId).then((owner) => owner ?? '');
      const day = new Date(clock()).toISOString().slice(0, 10);
      return `tenant-day:${day}:${await tenant}`;
    };
    return {
      async admit(call, reserveUsd) {
        const key = await keyOf();
        const reserved = micro(reserveUsd);
        if (await counters.add(key, reserved, cap)) {
          held.set(call, { key, reserved });
          return null;
        }
        const who =
          (await tenant) === '' ? 'sessions without an owner' : `tenant "${await tenant}"`;
        const content = `Daily budget of ${formatUsd(capUsd)} for ${who} reached`;
        return { stop: stopMessage({ source: 'budgets', content }), ask: true };
      },
      async settle(call, _reserveUsd, costUsd) {
        const hold = held.get(call);
        if (hold === undefined) return;
        held.delete(call);
        const delta = micro(costUsd) - hold.reserved;
        if (delta !== 0) await counters.add(hold.key, delta);
      },
      async raise(amountUsd) {
        await counters.add(await keyOf(), -micro(amountUsd));
      },
    };
  };
}

import { mkdir, readdir, readFile, unlink } from 'node:fs/promises';
import { hostname } from 'node:os';
import { join } from 'node:path';

import { createOnce } from './exclusive-file.js';
import { codeOf, isRecord } from '../unknown-value.js';

// A session's lease in a FileCheckpointStore: a folder of numbered generations, the highest one
// in force. Every change (take, renew, release) creates the next generation with `createOnce()`,
// so of two processes that read generation n only one writes n + 1; the other reads again and
// finds the lease taken. No lock file is held, so none is ever broken by a guess at its age.

/** A lease as its file holds it: who (`null` once released), until when, on which process. */
interface Lease {
  owner: string | null;
  expires: number;
  pid: number;
  host: string;
}

/** Rounds of read-then-create before giving up to a busier process. */
const ATTEMPTS = 8;
const GENERATION = /^[1-9][0-9]{0,15}$/;

/** Takes or renews the lease for `owner`; `false` when another owner holds it. */
export async function takeLease(folder: string, owner: string, ttlMs: number): Promise<boolean> {
  await mkdir(folder, { recursive: true, mode: 0o700 });
  return change(folder, (lease) => {
    if (lease !== null && lease.owner !== owner && held(lease)) return undefined;
    return { owner, expires: Date.now() + ttlMs, pid: process.pid, host: hostname() };
  });
}

/** Gives the lease up if `owner` holds it. */
export async function releaseLease(folder: string, owner: string): Promise<void> {
  await change(folder, (lease) =>
    lease?.owner === owner ? { owner: null, expires: 0, pid: 0, host: '' } : undefined,
  );
}

/** The owner of the unexpired lease, or `null`. */
export async function leaseOwner(folder: string): Promise<string | null> {
  const { lease } = await current(folder);
  return lease !== null && held(lease) ? lease.owner : null;
}

/** Writes the generation after the current one as `next` decides; `false` when it declines. */
async function change(folder: string, next: (lease: Lease | null) => Lease | undefined) {
  for (let attempt = 0; attempt < ATTEMPTS; attempt++) {
    const { generation, lease } = await current(folder);
    const written = next(lease);
    if (written === undefined) return false;
    const mine = generation + 1;
    const content = JSON.stringify(written);
    if (!(await createOnce(folder, String(mine), content, { durable: false }))) continue;
    // A reader racing a prune can miss every generation and write one long since pruned, which
    // then sits below the real current one: that write did not take the lease.
    const names = await readdir(folder);
    if (names.some((name) => GENERATION.test(name) && Number(name) > mine)) return false;
    await Promise.all(
      names
        .filter((name) => GENERATION.test(name) && Number(name) < mine - 1)
        .map((name) => unlink(join(folder, name)).catch(() => undefined)),
    );
    return true;
  }
  return false;
}

/** The highest generation and its lease (`null` when there is none or it was released). */
async function current(folder: string): Promise<{ generation: number; lease: Lease | null }> {
  for (;;) {
    let names: string[];
    try {
      names = await readdir(folder);
    } catch (error) {
      if (codeOf(error) === 'ENOENT') return { generation: 0, lease: null };
      throw error;
    }
    const generation = Math.max(0, ...names.filter((n) => GENERATION.test(n)).map(Number));
    if (generation === 0) return { generation, lease: null };
    try {
      return { generation, lease: parse(await readFile(join(folder, String(generation)), 'utf8')) };
    } catch (error) {
      // Pruned after a newer generation was written: read the folder again.
      if (codeOf(error) !== 'ENOENT') throw error;
    }
  }
}

function parse(text: string): Lease | null {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return null;
  }
  if (!isRecord(value) || typeof value.owner !== 'string' || typeof value.expires !== 'number') {
    return null;
  }
  return {
    owner: value.owner,
    expires: value.expires,
    pid: typeof value.pid === 'number' ? value.pid : 0,
    host: typeof value.host === 'string' ? value.host : '',
  };
}

/**
 * True while a lease binds: unexpired, and — when it was taken on this host — its process still
 * alive, so a killed run frees its session at once instead of after the lease's time to live.
 */
function held(lease: Lease): boolean {
  if (lease.expires <= Date.now()) return false;
  if (lease.host === hostname() && lease.pid > 0 && lease.pid !== process.pid) {
    return isAlive(lease.pid);
  }
  return true;
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return codeOf(error) === 'EPERM';
  }
}

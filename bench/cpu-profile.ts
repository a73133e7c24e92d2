// Reads a `.cpuprofile` written by `node --cpu-prof` and sums the self time of each function.
import { readFileSync } from 'node:fs';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
}

interface CpuProfile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

export interface SelfTime {
  /** `function (file:line)`, the file relative to the repository or the package. */
  name: string;
  /** Where the function lives: a file of `src/`, a package or `node`. */
  where: string;
  ms: number;
  share: number;
}

/** Shortens a script URL to `src/…`, the package name, `node:…` or the bare name. */
export function placeOf(url: string): string {
  if (url === '') return '(native)';
  if (url.startsWith('node:')) return url;
  const packageMatch = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url);
  if (packageMatch?.[1] !== undefined) return packageMatch[1];
  const repoMatch = /\/((?:src|bench|test)\/.*)$/.exec(url);
  return repoMatch?.[1] ?? url;
}

// Start-up work: Node's module loader and tsx compiling the TypeScript sources.
const LOADING = /^node:internal\/(modules|deps\/cjs-module-lexer)|^tsx$|^esbuild$/;

/**
 * Self time per function and per place, largest first. `(idle)` is left out, and so is module
 * loading at start-up, whose total comes back as `loadingMs`.
 */
export function summarize(path: string): {
  functions: SelfTime[];
  places: SelfTime[];
  loadingMs: number;
} {
  const profile = JSON.parse(readFileSync(path, 'utf8')) as CpuProfile;
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const selfUs = new Map<number, number>();
  profile.samples.forEach((id, i) => {
    selfUs.set(id, (selfUs.get(id) ?? 0) + (profile.timeDeltas[i] ?? 0));
  });
  const functions = new Map<string, SelfTime>();
  const places = new Map<string, SelfTime>();
  let total = 0;
  let loadingUs = 0;
  for (const [id, us] of selfUs) {
    const frame = byId.get(id)?.callFrame;
    if (frame === undefined || frame.functionName === '(idle)') continue;
    const where = placeOf(frame.url);
    if (LOADING.test(where)) {
      loadingUs += us;
      continue;
    }
    total += us;
    // Files compiled by tsx report line 0 for every function; a line is only shown when known.
    const line = frame.lineNumber > 0 ? `:${frame.lineNumber + 1}` : '';
    const name =
      frame.url === ''
        ? frame.functionName
        : `${frame.functionName || '(anonymous)'} (${where}${line})`;
    const fn = functions.get(name) ?? { name, where, ms: 0, share: 0 };
    fn.ms += us / 1000;
    functions.set(name, fn);
    const place = places.get(where) ?? { name: where, where, ms: 0, share: 0 };
    place.ms += us / 1000;
    places.set(where, place);
  }
  const ranked = (rows: Iterable<SelfTime>) =>
    [...rows]
      .map((row) => ({ ...row, share: row.ms / (total / 1000) }))
      .sort((a, b) => b.ms - a.ms);
  return {
    functions: ranked(functions.values()),
    places: ranked(places.values()),
    loadingMs: loadingUs / 1000,
  };
}

// Every type that a public signature uses is exported from the package root, so callers can name
// it (a classifier's `ParticipantInfo[]`, the options of `withResolver()`). Read with the
// TypeScript compiler from src/index.ts (test/support/public-types.ts): each export's declaration,
// its public members and those of the classes it extends, followed through every type it
// references. Members tagged `@internal` (engine hooks, constructors that builders call) are not
// public.
import { describe, expect, it } from 'vitest';

import { readPublicSurface } from '../support/public-types.js';

describe('the public API (src/index.ts)', () => {
  it('exports every type its public signatures use', () => {
    const surface = readPublicSurface();
    const missing = surface
      .reachedFrom(surface.names)
      .filter((type) => !type.exported)
      .map((type) => `${type.name} (${type.file})`);
    expect(missing.sort()).toEqual([]);
  }, 60_000);
});

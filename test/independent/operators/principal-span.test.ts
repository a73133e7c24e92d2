// Issue 45: the run that carries a decision names its principal on its span.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { approve } from '../../../src/index.js';
import { type Sdk, startSdk } from '../tracing/otel.js';
import { supervisedDesk } from './desk.js';

let sdk: Sdk;
beforeAll(() => {
  sdk = startSdk();
});
afterAll(async () => {
  await sdk.stop();
});

describe('baton.principal.id', () => {
  it('is on the invoke_workflow span of the run a supervisor decides, not on the customer run', async () => {
    const { workflow } = supervisedDesk();
    const session = workflow.session('traced');
    await session.run('Refund INV-1');
    await session.run(approve('c1'), { principal: { id: 'sup-1', roles: ['supervisor'] } });
    const runs = sdk
      .spans()
      .filter((s) => s.name === 'invoke_workflow support')
      .map((s) => s.attributes['baton.principal.id']);
    expect(runs).toEqual([undefined, 'sup-1']);
  });
});

import { describe, expect, it } from 'vitest';

import { ToolCallAssembler } from './tool-call-deltas.js';

describe('ToolCallAssembler', () => {
  it('assembles interleaved deltas by index, in index order', () => {
    const calls = new ToolCallAssembler();
    calls.add({ index: 1, id: 'b', function: { name: 'g', arguments: '' } });
    calls.add({ index: 0, id: 'a', function: { name: 'f', arguments: '{"x"' } });
    calls.add({ index: 1, function: { arguments: '{}' } });
    calls.add({ index: 0, id: null, function: { name: null, arguments: ':1}' } });
    expect(calls.calls()).toEqual([
      { id: 'a', name: 'f', arguments: '{"x":1}' },
      { id: 'b', name: 'g', arguments: '{}' },
    ]);
  });

  it('takes a repeated id or name as sent instead of appending it', () => {
    const calls = new ToolCallAssembler();
    calls.add({ index: 0, id: 'a', function: { name: 'f' } });
    calls.add({ index: 0, id: 'a', function: { name: 'f', arguments: '{}' } });
    expect(calls.calls()).toEqual([{ id: 'a', name: 'f', arguments: '{}' }]);
    expect(new ToolCallAssembler().calls()).toEqual([]);
  });
});

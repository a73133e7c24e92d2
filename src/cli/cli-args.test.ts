import { describe, expect, it } from 'vitest';

import { closest, type CommandSpec, parseCommandArgs, UsageError } from './cli-args.js';

const SPEC: CommandSpec = {
  command: 'demo',
  options: [
    { name: 'session', value: 'an id', example: '--session 3f2a' },
    { name: 'store', value: 'a directory', example: '--store .baton' },
    { name: 'ui', value: 'no value', example: '--ui', flag: true },
  ],
  positionals: [],
};

describe('parseCommandArgs()', () => {
  it('suggests the option a misspelt flag was meant to be', () => {
    expect(() => parseCommandArgs(SPEC, ['--sesion', 'x'])).toThrow(
      new UsageError(
        'baton demo: unknown argument "--sesion": did you mean --session? Run "baton demo --help".',
      ),
    );
    expect(() => parseCommandArgs(SPEC, ['--stroe=x'])).toThrow(
      'baton demo: unknown argument "--stroe=x": did you mean --store? Run "baton demo --help".',
    );
  });

  it('suggests nothing for a flag that is no typo of an option', () => {
    expect(() => parseCommandArgs(SPEC, ['--verbose'])).toThrow(
      'baton demo: unknown argument "--verbose". Run "baton demo --help".',
    );
  });
});

describe('parseCommandArgs() with a flag', () => {
  it('takes a flag without a value, before or after an option', () => {
    expect(parseCommandArgs(SPEC, ['--ui', '--store', 'x']).options).toEqual(
      new Map([
        ['ui', 'yes'],
        ['store', 'x'],
      ]),
    );
    expect(parseCommandArgs(SPEC, ['--store', 'x', '--ui']).options.get('ui')).toBe('yes');
    expect(parseCommandArgs(SPEC, []).options.has('ui')).toBe(false);
  });

  it('refuses a value or a second time', () => {
    expect(() => parseCommandArgs(SPEC, ['--ui=yes'])).toThrow(
      new UsageError('baton demo: --ui takes no value, got "--ui=yes". Run "baton demo --help".'),
    );
    expect(() => parseCommandArgs(SPEC, ['--ui', '--ui'])).toThrow(
      'baton demo: --ui is given twice. Run "baton demo --help".',
    );
  });
});

describe('closest()', () => {
  it('takes the nearest candidate within two edits', () => {
    expect(closest('dmeo', ['run', 'graph', 'dev', 'demo'])).toBe('demo');
    expect(closest('--SESSION', ['--session'])).toBe('--session');
    expect(closest('deploy', ['run', 'graph', 'dev', 'demo'])).toBeUndefined();
  });
});

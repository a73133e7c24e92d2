import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

import { describe, expect, it } from 'vitest';

import { DESK_TS } from '../../src/cli/init-desk.js';
import {
  codeBlocks,
  relativeLinks,
  root,
  runBlock,
  shownTsconfig,
  typeCheckBlocks,
} from '../support/markdown-blocks.js';

const readme = readFileSync(join(root, 'README.md'), 'utf8');
const blocks = codeBlocks(readme);

describe('README', () => {
  it('is a front door of at most 250 lines', () => {
    expect(readme.split('\n').length).toBeLessThanOrEqual(250);
  });

  it('gives the two set-up commands: the demo and the whole suite', () => {
    expect(readme).toContain(
      '```sh\nnpm install && npm start   # the support-desk demo\nnpm test                   # the whole suite\n```',
    );
  });

  it('has one tour block, followed by what it prints', () => {
    expect(blocks).toHaveLength(1);
    expect(blocks[0]?.output).toBe(
      'awaiting_input billing INV-1001 was charged twice. Shall I refund one charge?\n' +
        'Refunded. Anything else?\n' +
        "terminated Text 'bye' mentioned\n" +
        'user_input, agent_response:triage, agent_response:billing, user_input, agent_response:billing, user_input\n' +
        "{ invoiceId: 'INV-1001' }\n",
    );
  });

  it.each(blocks.map((block, i) => ({ ...block, i, n: String(i + 1) })))(
    'tour block $n prints what the README shows',
    ({ code, output, i }) => {
      const run = runBlock(`readme-${i}`, code);
      expect(run.stderr).toBe('');
      expect(run.stdout).toBe(output);
      expect(run.status).toBe(0);
    },
    60_000,
  );

  it("type-checks every block, and the desk `baton init` writes, with the README's tsconfig.json", () => {
    const { compilerOptions } = shownTsconfig(readme);
    expect(compilerOptions).toMatchObject({ target: 'ES2023', strict: true, types: ['node'] });
    const tsc = typeCheckBlocks(
      'readme',
      [
        ...blocks.map((block, i) => ({ file: `block-${i}`, code: block.code })),
        { file: 'init-desk', code: DESK_TS },
      ],
      compilerOptions,
    );
    expect(tsc.stdout).toBe('');
    expect(tsc.status).toBe(0);
  }, 300_000);

  it('links only to files that exist', () => {
    const links = relativeLinks(readme);
    expect(links).toContain('docs/getting-started.md');
    expect(links.filter((target) => !existsSync(join(root, target)))).toEqual([]);
  });
});

// ESLint (flat config): the recommended JavaScript and typescript-eslint rules, plus the house
// rules of STYLE.md that a linter can check. Formatting is Prettier's job (`npm run lint` runs both).
import js from '@eslint/js';
import globals from 'globals';
import tseslint from 'typescript-eslint';

import { layerRules } from './scripts/layer-rules.mjs';

/** The syntax STYLE.md rules out, in every file (layerRules() adds its own to these). */
const restrictedSyntax = [
  {
    selector: 'ExportDefaultDeclaration',
    message: 'Use named exports only (STYLE.md: a default export breaks grep and renames).',
  },
  { selector: 'TSEnumDeclaration', message: 'Use a union of string literals, not enum.' },
];

export default tseslint.config(
  { ignores: ['dist/', 'docs/api/', 'node_modules/', '.baton/', '.scratch/', 'coverage/'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { globals: { ...globals.node } },
    rules: {
      '@typescript-eslint/no-explicit-any': 'error',
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_', destructuredArrayIgnorePattern: '^_' },
      ],
      '@typescript-eslint/consistent-type-imports': 'error',
      'no-restricted-syntax': ['error', ...restrictedSyntax],
    },
  },
  // The layers of layers.json: an import that runs upward fails here (scripts/layer-rules.mjs).
  ...layerRules(undefined, restrictedSyntax),
  {
    // STYLE.md: a file holds one idea; past 350 lines it holds several. Tests may run longer.
    files: ['src/**/*.ts'],
    ignores: ['src/**/*.test.ts'],
    rules: { 'max-lines': ['error', { max: 350, skipBlankLines: false, skipComments: false }] },
  },
  {
    files: ['eslint.config.js', 'vitest.config.ts'],
    rules: { 'no-restricted-syntax': 'off' },
  },
);

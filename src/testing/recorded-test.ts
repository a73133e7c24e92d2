import { readFile } from 'node:fs/promises';
import { dirname, relative, resolve, sep } from 'node:path';

/** How a generated test reaches the workflow: the module's export, or createWorkflow() in memory. */
export type WorkflowExport = 'workflow' | 'default' | 'createWorkflow';

/** What a generated test file needs to know. */
export interface RecordedTestParts {
  readonly sessionId: string;
  /** The module as the user named it (for the comment). */
  readonly modulePath: string;
  /** The import specifier of the module, relative to the test file. */
  readonly moduleImport: string;
  readonly exported: WorkflowExport;
  /** Where the test imports `replay` (and the memory store) from. */
  readonly batonImport: string;
  /** The recording's file name, beside the test. */
  readonly recordingFile: string;
}

/** `./x` or `../x` with forward slashes, the way an import names a file. */
function specifier(from: string, to: string): string {
  const path = relative(from, to).split(sep).join('/');
  return path.startsWith('.') ? path : `./${path}`;
}

/** TypeScript sources are imported by their `.js` name (module resolution "nodenext"). */
function asJs(path: string): string {
  return path.replace(/\.(m|c)?tsx?$/, (ext) => ext.replace('ts', 'js').replace('x', ''));
}

/** The module's import specifier as seen from the test's directory. */
export function moduleSpecifier(testFile: string, modulePath: string): string {
  return asJs(specifier(dirname(resolve(testFile)), resolve(modulePath)));
}

/**
 * Where the module gets Baton from: a relative import of Baton's own source (`../src/index.js`,
 * as in this repository's samples), re-based to the test's directory; otherwise the package name.
 */
export async function batonSpecifier(testFile: string, modulePath: string): Promise<string> {
  const source = await readFile(modulePath, 'utf8').catch(() => '');
  const found = /from\s+['"]((?:\.\.?\/)[^'"]*src\/index(?:\.[jt]s)?)['"]/.exec(source)?.[1];
  if (found === undefined) return 'baton-agents';
  const target = resolve(dirname(resolve(modulePath)), found);
  return asJs(specifier(dirname(resolve(testFile)), target));
}

/**
 * `text` as the inside of a single-quoted JavaScript string: quotes, backslashes and every control
 * character or line terminator (U+2028 and U+2029 end a line in JavaScript) escaped, so no text
 * reaches the generated code as anything but a string.
 */
function quoted(text: string): string {
  // eslint-disable-next-line no-control-regex -- matching control characters is the point
  return text.replace(/[\\'\u0000-\u001f\u007f-\u009f\u2028\u2029]/g, (c) =>
    c === '\\' || c === "'" ? `\\${c}` : unicodeEscape(c),
  );
}

/**
 * `text` as it may stand in a `//` comment: on one line, whatever it holds (line breaks, U+2028,
 * U+2029 and other control characters become `\u` escapes, as in `quoted`).
 */
function inComment(text: string): string {
  // eslint-disable-next-line no-control-regex -- matching control characters is the point
  return text.replace(/[\u0000-\u001f\u007f-\u009f\u2028\u2029]/g, unicodeEscape);
}

function unicodeEscape(c: string): string {
  return `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`;
}

/**
 * The source of a Vitest test that replays a recording against the module's workflow and fails
 * with the divergence as its message.
 */
export function recordedTestSource(parts: RecordedTestParts): string {
  // Every value written into the code is escaped: a session id is chosen by any HTTP client.
  const shown = { id: inComment(parts.sessionId), module: inComment(parts.modulePath) };
  const imports =
    parts.exported === 'workflow'
      ? `import { workflow } from '${quoted(parts.moduleImport)}';`
      : parts.exported === 'default'
        ? `import workflow from '${quoted(parts.moduleImport)}';`
        : `import { createWorkflow } from '${quoted(parts.moduleImport)}';`;
  const baton =
    parts.exported === 'createWorkflow'
      ? `import { MemoryCheckpointStore, replay } from '${quoted(parts.batonImport)}';`
      : `import { replay } from '${quoted(parts.batonImport)}';`;
  const build =
    parts.exported === 'createWorkflow'
      ? '  const workflow = await createWorkflow({ checkpointStore: new MemoryCheckpointStore() });\n'
      : '';
  return `// Made by \`baton test record ${shown.module} --session ${shown.id}\`: session
// "${shown.id}" replayed with its recorded model answers and tool results (beside it, in
// ${inComment(parts.recordingFile)}). It fails where the workflow now goes another way; record the session
// again after a change you meant.
import { readFileSync } from 'node:fs';

import { expect, it } from 'vitest';

${baton}
${imports}

it('replays session "${quoted(parts.sessionId)}" as recorded', async () => {
  const recording = JSON.parse(
    readFileSync(new URL('./${quoted(parts.recordingFile)}', import.meta.url), 'utf8'),
  );
${build}  const report = await replay(workflow, recording);
  const d = report.divergence;
  if (d !== undefined) {
    expect.fail(
      \`Replay of session "\${recording.sessionId}" diverged at turn \${d.turn} (\${d.agent}): \` +
        \`\${d.what} was \${JSON.stringify(d.expected)} when recorded, \${JSON.stringify(d.actual)} now.\`,
    );
  }
  expect(report.ok).toBe(true);
});
`;
}

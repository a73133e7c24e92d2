// Counts type assertions (`x as T`, `<T>x`) in src/, tests excluded, `as const` not counted:
// each one is a place where the compiler was told rather than shown. Issue 28 caps them (see
// test/scenarios/cast-budget.test.ts). Usage: node scripts/count-casts.mjs [--files]
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

import ts from 'typescript';

const root = fileURLToPath(new URL('..', import.meta.url));

/** The casts of one source text: line numbers of every assertion that is not `as const`. */
export function castsIn(text, fileName = 'file.ts') {
  const source = ts.createSourceFile(fileName, text, ts.ScriptTarget.Latest, true);
  const lines = [];
  const visit = (node) => {
    const isCast = ts.isAsExpression(node) || ts.isTypeAssertionExpression(node);
    const isConst =
      isCast && ts.isTypeReferenceNode(node.type) && node.type.typeName.getText(source) === 'const';
    if (isCast && !isConst)
      lines.push(source.getLineAndCharacterOfPosition(node.getStart()).line + 1);
    ts.forEachChild(node, visit);
  };
  visit(source);
  return lines;
}

/** Casts per file of src/ (test files excluded), keyed by the path from the project root. */
export function castsBySourceFile(dir = join(root, 'src')) {
  const counts = new Map();
  for (const entry of readdirSync(dir, { recursive: true, withFileTypes: true })) {
    const name = entry.name;
    if (!entry.isFile() || !name.endsWith('.ts') || name.endsWith('.test.ts')) continue;
    const path = join(entry.parentPath, name);
    const n = castsIn(readFileSync(path, 'utf8'), path).length;
    if (n > 0) counts.set(relative(root, path), n);
  }
  return counts;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const counts = castsBySourceFile();
  const byFolder = new Map();
  for (const [file, n] of counts) {
    const parts = file.split('/');
    const folder = parts.length > 2 ? parts.slice(0, 2).join('/') : 'src (root files)';
    byFolder.set(folder, (byFolder.get(folder) ?? 0) + n);
  }
  const rows = process.argv.includes('--files') ? counts : byFolder;
  for (const [key, n] of [...rows].sort((a, b) => b[1] - a[1]))
    console.log(`${String(n).padStart(4)}  ${key}`);
  console.log(`${String([...counts.values()].reduce((a, b) => a + b, 0)).padStart(4)}  total`);
}

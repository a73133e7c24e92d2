// Every type that a public signature uses is exported from the package root, so callers can name
// it (a classifier's `ParticipantInfo[]`, the options of `withResolver()`). Read with the
// TypeScript compiler from src/index.ts: each export's declaration, its public members and those
// of the classes it extends, followed through every type it references. Members tagged
// `@internal` (engine hooks, constructors that builders call) are not public.
import { resolve } from 'node:path';

import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const src = resolve(import.meta.dirname, '../../src');
const index = resolve(src, 'index.ts');

function unexportedTypes(): string[] {
  const program = ts.createProgram([index], {
    module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext,
    target: ts.ScriptTarget.ES2023,
    strict: true,
    skipLibCheck: true,
    noEmit: true,
  });
  const checker = program.getTypeChecker();
  const resolveAlias = (symbol: ts.Symbol | undefined) =>
    symbol !== undefined && symbol.flags & ts.SymbolFlags.Alias
      ? checker.getAliasedSymbol(symbol)
      : symbol;
  const root = checker.getSymbolAtLocation(program.getSourceFile(index) as ts.SourceFile);
  const exported = new Set<ts.Declaration>(
    checker
      .getExportsOfModule(root as ts.Symbol)
      .flatMap((symbol) => resolveAlias(symbol)?.declarations ?? []),
  );
  const hidden = (node: ts.Node) =>
    ts.getJSDocTags(node).some((tag) => tag.tagName.text === 'internal') ||
    (ts.isClassElement(node) &&
      (ts.getCombinedModifierFlags(node as ts.Declaration) &
        (ts.ModifierFlags.Private | ts.ModifierFlags.Protected)) !==
        0) ||
    (ts.isClassElement(node) && node.name !== undefined && ts.isPrivateIdentifier(node.name));

  const missing = new Set<string>();
  const visited = new Set<ts.Node>();
  const walk = (node: ts.Node, inBase = false): void => {
    if (ts.isBlock(node) || hidden(node)) return;
    if (inBase && ts.isConstructorDeclaration(node)) return;
    if (ts.isHeritageClause(node) && ts.isClassDeclaration(node.parent)) {
      for (const type of node.types) {
        type.typeArguments?.forEach((t) => walk(t));
        if (node.token !== ts.SyntaxKind.ExtendsKeyword) continue;
        // An implementation base class: its public members are the subclass's own.
        for (const d of resolveAlias(checker.getSymbolAtLocation(type.expression))?.declarations ??
          []) {
          if (ts.isClassDeclaration(d)) {
            d.members.forEach((m) => walk(m, true));
            d.heritageClauses?.forEach((h) => walk(h, true));
          }
        }
      }
      return;
    }
    if (ts.isTypeReferenceNode(node) || ts.isTypeQueryNode(node)) {
      const name = ts.isTypeReferenceNode(node) ? node.typeName : node.exprName;
      const symbol = resolveAlias(checker.getSymbolAtLocation(name));
      for (const d of symbol?.declarations ?? []) {
        if (!d.getSourceFile().fileName.startsWith(src) || ts.isTypeParameterDeclaration(d)) {
          continue;
        }
        if (!exported.has(d))
          missing.add(`${symbol?.getName()} (${d.getSourceFile().fileName.slice(src.length + 1)})`);
        if (!visited.has(d)) {
          visited.add(d);
          walk(d);
        }
      }
    }
    if (ts.isFunctionLike(node)) {
      node.typeParameters?.forEach((t) => walk(t));
      node.parameters.forEach((p) => p.type !== undefined && walk(p.type));
      if (node.type !== undefined) walk(node.type);
      return;
    }
    if (ts.isVariableDeclaration(node) || ts.isPropertyDeclaration(node)) {
      if (node.type !== undefined) walk(node.type);
      return;
    }
    ts.forEachChild(node, (child) => walk(child, inBase));
  };
  for (const d of exported) {
    visited.add(d);
    walk(d);
  }
  return [...missing].sort();
}

describe('the public API (src/index.ts)', () => {
  it('exports every type its public signatures use', () => {
    expect(unexportedTypes()).toEqual([]);
  }, 60_000);
});

// Reads the public surface with the TypeScript compiler: src/index.ts's exports and, from any set
// of them, every type their public signatures reach (members tagged `@internal`, private and `#`
// members, and function bodies excluded; an implementation base class's members count as the
// subclass's own). public-api.test.ts and public-names.test.ts both stand on it.
import { resolve } from 'node:path';

import ts from 'typescript';

const src = resolve(import.meta.dirname, '../../src');
const index = resolve(src, 'index.ts');

export interface PublicSurface {
  /** Every name src/index.ts exports. */
  names: string[];
  /**
   * The types declared in src/ that the signatures of the exports named `from` reach, as
   * `Name (path from src/)`, and whether each is exported.
   */
  reachedFrom(from: readonly string[]): { name: string; file: string; exported: boolean }[];
}

export function readPublicSurface(): PublicSurface {
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
  const indexFile = program.getSourceFile(index);
  const root = indexFile && checker.getSymbolAtLocation(indexFile);
  if (root === undefined) throw new Error(`${index} has no module symbol`);
  const exports = checker.getExportsOfModule(root);
  const exported = new Set<ts.Declaration>(
    exports.flatMap((symbol) => resolveAlias(symbol)?.declarations ?? []),
  );
  const hidden = (node: ts.Node) =>
    ts.getJSDocTags(node).some((tag) => tag.tagName.text === 'internal') ||
    (ts.isClassElement(node) &&
      (ts.getCombinedModifierFlags(node as ts.Declaration) &
        (ts.ModifierFlags.Private | ts.ModifierFlags.Protected)) !==
        0) ||
    (ts.isClassElement(node) && node.name !== undefined && ts.isPrivateIdentifier(node.name));

  const reachedFrom = (from: readonly string[]) => {
    const reached = new Map<string, { name: string; file: string; exported: boolean }>();
    const visited = new Set<ts.Node>();
    const walk = (node: ts.Node, inBase = false): void => {
      if (ts.isBlock(node) || hidden(node)) return;
      if (inBase && ts.isConstructorDeclaration(node)) return;
      if (ts.isHeritageClause(node) && ts.isClassDeclaration(node.parent)) {
        for (const type of node.types) {
          type.typeArguments?.forEach((t) => walk(t));
          if (node.token !== ts.SyntaxKind.ExtendsKeyword) continue;
          // An implementation base class: its public members are the subclass's own.
          for (const d of resolveAlias(checker.getSymbolAtLocation(type.expression))
            ?.declarations ?? []) {
            if (ts.isClassDeclaration(d)) {
              d.members.forEach((m) => walk(m, true));
              d.heritageClauses?.forEach((h) => walk(h, true));
            }
          }
        }
        return;
      }
      // An interface's `extends` names its bases as expressions with type arguments.
      const name = ts.isTypeReferenceNode(node)
        ? node.typeName
        : ts.isTypeQueryNode(node)
          ? node.exprName
          : ts.isExpressionWithTypeArguments(node) && ts.isHeritageClause(node.parent)
            ? node.expression
            : undefined;
      if (name !== undefined) {
        const symbol = resolveAlias(checker.getSymbolAtLocation(name));
        for (const d of symbol?.declarations ?? []) {
          const file = d.getSourceFile().fileName;
          if (!file.startsWith(src) || ts.isTypeParameterDeclaration(d)) continue;
          const key = `${symbol?.getName()} (${file.slice(src.length + 1)})`;
          reached.set(key, {
            name: symbol?.getName() ?? '',
            file: file.slice(src.length + 1),
            exported: exported.has(d),
          });
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
    for (const symbol of exports.filter((s) => from.includes(s.name))) {
      for (const d of resolveAlias(symbol)?.declarations ?? []) {
        visited.add(d);
        walk(d);
      }
    }
    return [...reached.values()];
  };
  return { names: exports.map((s) => s.name).sort(), reachedFrom };
}

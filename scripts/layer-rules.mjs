// Turns layers.json into ESLint flat-config objects: for each folder of src/ (and each file at
// its root), one `no-restricted-imports` rule that forbids every path of a higher layer, the
// implementations behind an interface (layers.json "interfaces") and the packages kept to one
// place (layers.json "packages"). Relative specifiers are matched by regexes computed from the
// folder of the importing file, so the rule needs no resolver and no plugin. `import()` (which
// no-restricted-imports does not see) gets the same patterns through no-restricted-syntax, after
// the project's own selectors (`baseSyntax`), since a rule's options are replaced, not merged.
import { readdirSync, readFileSync } from 'node:fs';
import { join, posix } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));

/** layers.json, parsed. */
export function readLayers() {
  return JSON.parse(readFileSync(join(root, 'layers.json'), 'utf8'));
}

const escape = (text) => text.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
const within = (path, prefix) => path === prefix || path.startsWith(`${prefix}/`);

/** The layer that owns a path of src/ (a folder or a file), or undefined. */
export function layerOf(path, layers = readLayers().layers) {
  let found;
  for (const [index, layer] of layers.entries()) {
    for (const p of layer.paths) {
      if (within(path, p) && (!found || p.length > found.path.length))
        found = { index, layer, path: p };
    }
  }
  return found && { index: found.index, name: found.layer.name };
}

/** A regex source matching every specifier, written from `dir`, that lands in `target`. */
function specifierRegex(dir, target, except = []) {
  let rel = posix.relative(dir, target);
  if (!rel.startsWith('..')) rel = `./${rel}`;
  if (target.endsWith('.ts')) return `^${escape(rel.replace(/\.ts$/, '.js'))}$`;
  const allowed = except.map((file) =>
    escape(posix.relative(target, file).replace(/\.ts$/, '.js')),
  );
  return `^${escape(rel)}/${allowed.length ? `(?!(?:${allowed.join('|')})$)` : ''}`;
}

/** The `no-restricted-imports` patterns for the files directly in `dir` that belong to `layerIndex`. */
export function restrictedPatterns(dir, layerIndex, config = readLayers(), files = undefined) {
  const { layers, interfaces = [], packages = [] } = config;
  const layer = layers[layerIndex];
  const patterns = [];
  for (const higher of layers.slice(layerIndex + 1)) {
    for (const target of higher.paths) {
      patterns.push({
        regex: specifierRegex(dir, target),
        message: `Layer "${layer.name}" must not import layer "${higher.name}" (${target}): layers.json lists it higher. Move the code down a layer or pass it in.`,
      });
    }
  }
  for (const face of interfaces) {
    if (!face.for.includes(layer.name)) continue;
    for (const target of face.paths) {
      patterns.push({
        regex: specifierRegex(dir, target, face.only),
        message: `Layer "${layer.name}" imports ${target} only through ${face.only.join(', ')}: ${face.why} (layers.json).`,
      });
    }
  }
  const here = files ?? [dir];
  for (const pkg of packages) {
    if (here.every((file) => pkg.paths.some((p) => within(file, p)))) continue;
    patterns.push({
      regex: `^${escape(pkg.name)}(?:/.*)?$`,
      message: `Only ${pkg.paths.join(', ')} import${pkg.paths.length === 1 ? 's' : ''} "${pkg.name}": ${pkg.why} (layers.json).`,
    });
  }
  return patterns;
}

function foldersOf(dir) {
  const found = [dir];
  for (const entry of readdirSync(join(root, dir), { withFileTypes: true })) {
    if (entry.isDirectory()) found.push(...foldersOf(posix.join(dir, entry.name)));
  }
  return found;
}

/** An esquery selector for `import()` of a specifier matching `regex` (esquery regexes hold no `/`). */
function dynamicImport(regex) {
  return `ImportExpression[source.value=/${regex.replaceAll('\\/', '/').replaceAll('/', '\\x2F')}/u]`;
}

/**
 * Flat-config objects, one per folder of src/ and one per layered file at the root of src/.
 * `baseSyntax`: the `no-restricted-syntax` entries every file has, kept in each object.
 */
export function layerRules(config = readLayers(), baseSyntax = []) {
  const rules = [];
  const rule = (patterns) => ({
    'no-restricted-imports': ['error', { patterns }],
    'no-restricted-syntax': [
      'error',
      ...baseSyntax,
      ...patterns.map(({ regex, message }) => ({ selector: dynamicImport(regex), message })),
    ],
  });
  for (const dir of foldersOf('src')) {
    if (dir === 'src') {
      for (const entry of readdirSync(join(root, 'src'), { withFileTypes: true })) {
        const file = `src/${entry.name}`;
        const layer = entry.isFile() && file.endsWith('.ts') && layerOf(file, config.layers);
        if (!layer || file.endsWith('.test.ts')) continue;
        rules.push({
          files: [file],
          rules: rule(restrictedPatterns('src', layer.index, config, [file])),
        });
      }
      continue;
    }
    const layer = layerOf(dir, config.layers);
    if (!layer) continue;
    rules.push({
      files: [`${dir}/*.ts`],
      ignores: [`${dir}/*.test.ts`],
      rules: rule(restrictedPatterns(dir, layer.index, config)),
    });
    // A package kept to one file of this folder: that file gets its own, later, rule.
    const named = (config.packages ?? []).flatMap((pkg) => pkg.paths);
    for (const file of named.filter((p) => p.endsWith('.ts') && posix.dirname(p) === dir)) {
      rules.push({
        files: [file],
        rules: rule(restrictedPatterns(dir, layer.index, config, [file])),
      });
    }
  }
  return rules;
}

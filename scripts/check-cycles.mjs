#!/usr/bin/env node
// Fails when any module in the workspace imports itself through others, type-only imports
// included: a cycle makes load order matter and hides which module owns a concept. Nx's
// boundary rule sees cycles between projects; this sees them between files.
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import ts from 'typescript';

const root = resolve(dirname(new URL(import.meta.url).pathname), '..');
const SKIP = new Set(['node_modules', 'dist', 'cdk.out', '__snapshots__']);
const sourceDirs = ['libs', 'apps', 'infra', 'test', 'bench'].map((dir) => join(root, dir));

function tsFiles(dir) {
  return readdirSync(dir).flatMap((name) => {
    if (SKIP.has(name)) return [];
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return tsFiles(path);
    return /\.(m?ts|tsx)$/.test(name) && !name.endsWith('.d.ts') ? [path] : [];
  });
}

/** The file a relative specifier names: `./x.js` is `./x.ts`, a folder is its index. */
function resolveRelative(from, specifier) {
  const base = resolve(dirname(from), specifier);
  const stem = base.replace(/\.(m?js)$/, '');
  for (const candidate of [`${stem}.ts`, `${stem}.mts`, `${stem}.tsx`, join(base, 'index.ts')]) {
    if (existsSync(candidate)) return candidate;
  }
  return undefined;
}

function importGraph(files) {
  const graph = new Map();
  for (const file of files) {
    const { importedFiles } = ts.preProcessFile(readFileSync(file, 'utf8'), true, true);
    const targets = importedFiles.map(({ fileName }) => (fileName.startsWith('.') ? resolveRelative(file, fileName) : undefined)).filter(Boolean);
    graph.set(file, targets);
  }
  return graph;
}

/** Tarjan's strongly connected components; each with more than one file, or a file importing itself, is a cycle. */
function cycles(graph) {
  let index = 0;
  const indices = new Map();
  const lowlinks = new Map();
  const stack = [];
  const onStack = new Set();
  const found = [];
  const visit = (node) => {
    indices.set(node, index);
    lowlinks.set(node, index);
    index += 1;
    stack.push(node);
    onStack.add(node);
    for (const next of graph.get(node) ?? []) {
      if (!indices.has(next)) {
        visit(next);
        lowlinks.set(node, Math.min(lowlinks.get(node), lowlinks.get(next)));
      } else if (onStack.has(next)) lowlinks.set(node, Math.min(lowlinks.get(node), indices.get(next)));
    }
    if (lowlinks.get(node) !== indices.get(node)) return;
    const component = [];
    let member;
    do {
      member = stack.pop();
      onStack.delete(member);
      component.push(member);
    } while (member !== node);
    if (component.length > 1 || (graph.get(node) ?? []).includes(node)) found.push(component);
  };
  for (const node of graph.keys()) if (!indices.has(node)) visit(node);
  return found;
}

const files = sourceDirs.filter((dir) => existsSync(dir)).flatMap(tsFiles);
const found = cycles(importGraph(files));
if (found.length === 0) {
  process.stdout.write(`check-cycles: ${files.length} modules, no import cycles\n`);
} else {
  for (const component of found)
    process.stderr.write(
      `import cycle: ${component
        .map((file) => relative(root, file))
        .sort()
        .join(' <-> ')}\n`,
    );
  process.stderr.write(`check-cycles: ${found.length} import cycle(s); move the shared piece into a module both can import\n`);
  process.exit(1);
}

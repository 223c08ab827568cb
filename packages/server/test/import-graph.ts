/**
 * The import graph of every package's sources, read with the TypeScript compiler (type-only imports
 * included: a cycle of types still ties the files together), and its cycles. A workspace import
 * (`@runload/core/testing`) leads to the file its package's `@runload/source` export names.
 * @module
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import ts from 'typescript';

const SOURCE_EXTENSIONS = ['.ts', '.tsx'];

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const full = path.join(dir, name);
    if (statSync(full).isDirectory()) return sourceFiles(full);
    return SOURCE_EXTENSIONS.some((ext) => name.endsWith(ext)) && !name.endsWith('.d.ts') ? [full] : [];
  });
}

type Exports = Record<string, string | Record<string, unknown>>;

/** Each workspace import specifier (`@runload/core`, `@runload/core/testing`) to its source file. */
function workspaceEntries(packagesDir: string): Map<string, string> {
  const entries = new Map<string, string>();
  for (const dir of readdirSync(packagesDir)) {
    const manifest = path.join(packagesDir, dir, 'package.json');
    if (!existsSync(manifest)) continue;
    const pkg = JSON.parse(readFileSync(manifest, 'utf8')) as { name: string; exports?: Exports };
    for (const [subpath, target] of Object.entries(pkg.exports ?? {})) {
      const source = typeof target === 'object' ? target['@runload/source'] : undefined;
      if (typeof source === 'string') entries.set(path.posix.join(pkg.name, subpath), path.join(packagesDir, dir, source));
    }
  }
  return entries;
}

function resolveRelative(from: string, specifier: string): string | null {
  const base = path.resolve(path.dirname(from), specifier);
  const stem = base.replace(/\.(m?js|jsx)$/, '');
  const candidates = [base, ...SOURCE_EXTENSIONS.map((ext) => stem + ext), ...SOURCE_EXTENSIONS.map((ext) => path.join(base, `index${ext}`))];
  return candidates.find((c) => existsSync(c) && statSync(c).isFile()) ?? null;
}

/** Every source file of `packages/<name>/src` to the source files it imports (other packages' included). */
export function importGraph(packagesDir: string): Map<string, string[]> {
  const entries = workspaceEntries(packagesDir);
  const files = readdirSync(packagesDir)
    .map((dir) => path.join(packagesDir, dir, 'src'))
    .filter((src) => existsSync(src))
    .flatMap(sourceFiles);
  const graph = new Map<string, string[]>();
  for (const file of files) {
    const imports = ts.preProcessFile(readFileSync(file, 'utf8'), true, true).importedFiles.map((f) => f.fileName);
    const targets = imports
      .map((specifier) => (specifier.startsWith('.') ? resolveRelative(file, specifier) : (entries.get(specifier) ?? null)))
      .filter((target): target is string => target !== null);
    graph.set(file, [...new Set(targets)]);
  }
  return graph;
}

/** The strongly connected components with more than one file, or one file importing itself (Tarjan). */
export function cycles(graph: ReadonlyMap<string, readonly string[]>): string[][] {
  let next = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  const visit = (node: string): void => {
    index.set(node, next);
    low.set(node, next);
    next += 1;
    stack.push(node);
    onStack.add(node);
    for (const target of graph.get(node) ?? []) {
      if (!index.has(target)) {
        visit(target);
        low.set(node, Math.min(low.get(node)!, low.get(target)!));
      } else if (onStack.has(target)) {
        low.set(node, Math.min(low.get(node)!, index.get(target)!));
      }
    }
    if (low.get(node) !== index.get(node)) return;
    const component: string[] = [];
    let member: string;
    do {
      member = stack.pop()!;
      onStack.delete(member);
      component.push(member);
    } while (member !== node);
    if (component.length > 1 || (graph.get(node) ?? []).includes(node)) found.push(component.sort());
  };
  for (const node of graph.keys()) if (!index.has(node)) visit(node);
  return found;
}

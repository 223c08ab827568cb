/**
 * No source file of any package reaches itself through its imports (type-only imports counted): a
 * cycle means two files cannot be understood, changed or loaded one without the other.
 */
import { expect } from 'chai';
import path from 'node:path';
import { cycles, importGraph } from './import-graph.js';
import { REPO_ROOT } from './processes.js';

describe('the import graph of packages/*/src', () => {
  const packagesDir = path.join(REPO_ROOT, 'packages');

  it('has no cycles', () => {
    const graph = importGraph(packagesDir);
    expect(graph.size, 'the sources were found').to.be.greaterThan(100);
    const found = cycles(graph).map((cycle) => cycle.map((file) => path.relative(packagesDir, file)).join(' -> '));
    expect(found, 'files that import each other').to.deep.equal([]);
  });

  it('finds every cycle, a file importing itself included', () => {
    const graph = new Map([
      ['a.ts', ['b.ts']],
      ['b.ts', ['c.ts']],
      ['c.ts', ['a.ts', 'd.ts']],
      ['d.ts', []],
      ['e.ts', ['e.ts']],
    ]);
    expect(cycles(graph)).to.deep.equal([['a.ts', 'b.ts', 'c.ts'], ['e.ts']]);
  });

  it('reads type-only imports and workspace imports as edges', () => {
    const graph = importGraph(packagesDir);
    const edges = (file: string) => (graph.get(path.join(packagesDir, file)) ?? []).map((target) => path.relative(packagesDir, target));
    expect(edges('core/src/ports/rate-limiter.ts'), 'import type').to.include('core/src/domain/limit-window.ts');
    expect(edges('server/src/container.ts'), '@runload/storage-adapter/module').to.include('storage-adapter/src/module.ts');
  });
});

/**
 * The in-memory adapters in a project that has no test library: `@runload/core` packed and
 * installed alone (no chai, no mocha, no hash-wasm), where `@runload/core/testing` must load and
 * the in-memory example of docs/embedding.md must run a use case. Only the contract suites
 * (`@runload/core/contract-tests`) need chai, and they say so by failing to load there.
 */
import { expect } from 'chai';
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

function inMemoryExample(): string {
  const page = readFileSync(path.join(ROOT, 'docs/embedding.md'), 'utf8');
  const match = /<!-- embedding: in-memory -->\s*```ts\n([\s\S]*?)```/.exec(page);
  if (!match?.[1]) throw new Error('docs/embedding.md has no example marked <!-- embedding: in-memory -->');
  return match[1];
}

function run(command: string, args: readonly string[], cwd: string): string {
  return execFileSync(command, args, { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
}

describe('the core installed without chai, mocha or hash-wasm', function () {
  this.timeout(5 * 60_000);
  const work = mkdtempSync(path.join(tmpdir(), 'runload-no-chai-'));
  const project = path.join(work, 'project');

  before(() => {
    run(process.execPath, [path.join(ROOT, 'node_modules/typescript/bin/tsc'), '-b', 'tsconfig.build.json'], ROOT);
    const tarball = run('pnpm', ['pack', '--pack-destination', work], path.join(ROOT, 'packages/core')).trim().split('\n').filter((l) => l.endsWith('.tgz')).at(-1) as string;
    mkdirSync(project);
    writeFileSync(path.join(project, 'package.json'), JSON.stringify({ name: 'no-test-libraries', private: true, type: 'module', dependencies: { '@runload/core': `file:${tarball}` } }));
    run('npm', ['install', '--no-audit', '--no-fund', '--loglevel=error'], project);
    // The example has no type annotations: it runs as JavaScript, with no TypeScript in the project.
    writeFileSync(path.join(project, 'in-memory.mjs'), inMemoryExample());
  });

  after(() => rmSync(work, { recursive: true, force: true }));

  it('has none of them installed', () => {
    for (const name of ['chai', 'mocha', 'hash-wasm']) expect(existsSync(path.join(project, 'node_modules', name)), name).to.equal(false);
  });

  it('imports the in-memory ports and runs a use case (the embedding page example)', () => {
    expect(run(process.execPath, ['in-memory.mjs'], project)).to.match(/^run \S+ queued$/m);
  });

  it('keeps chai to the contract suites, whose entry names it when it is missing', () => {
    const loaded = spawnSync(process.execPath, ['--input-type=module', '-e', "await import('@runload/core/contract-tests')"], { cwd: project, encoding: 'utf8' });
    expect(loaded.status).to.not.equal(0);
    expect(loaded.stderr).to.match(/Cannot find package 'chai'/);
  });
});

/**
 * The library packages as another project gets them: each one packed with pnpm (so `workspace:`
 * ranges become exact versions and only its `files` ship), installed with npm from the tarballs
 * into a project outside the workspace (no links, no `@runload/source` condition), and used
 * there by the embedding examples of docs/embedding.md, type-checked and run. A tarball missing a file one
 * of its entries or imports needs fails here. `pnpm test:packed` (run by `.ci/run`).
 */
import { expect } from 'chai';
import { execFile, execFileSync } from 'node:child_process';
import { copyFileSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { startFakeComfyUI, type FakeComfyUI } from '@runload/fake-comfyui';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const TSC = path.join(ROOT, 'node_modules/typescript/bin/tsc');

interface Manifest {
  name: string;
  version: string;
  private?: boolean;
  exports: Record<string, { types: string; default: string }>;
  dependencies?: Record<string, string>;
}

/** Every package under packages/ that is not private: new ones are picked up as they land. */
function libraryPackages(): { dir: string; manifest: Manifest }[] {
  return readdirSync(path.join(ROOT, 'packages'))
    .map((name) => path.join(ROOT, 'packages', name))
    .flatMap((dir) => {
      try {
        return [{ dir, manifest: JSON.parse(readFileSync(path.join(dir, 'package.json'), 'utf8')) as Manifest }];
      } catch {
        return [];
      }
    })
    .filter((p) => p.manifest.private !== true);
}

const EMBEDDING_PAGE = 'docs/embedding.md';

/** The ```ts block that follows `<!-- embedding: NAME -->` on the embedding page. */
function embeddingExample(name: string): string {
  const page = readFileSync(path.join(ROOT, EMBEDDING_PAGE), 'utf8');
  const match = new RegExp(`<!-- embedding: ${name} -->\\s*\`\`\`ts\\n([\\s\\S]*?)\`\`\``).exec(page);
  if (!match?.[1]) throw new Error(`${EMBEDDING_PAGE} has no example marked <!-- embedding: ${name} -->`);
  return match[1];
}

function run(command: string, args: readonly string[], cwd: string, env: Record<string, string> = {}): string {
  try {
    return execFileSync(command, args, { cwd, encoding: 'utf8', env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'], maxBuffer: 64 * 1024 * 1024 });
  } catch (error) {
    const { stdout, stderr } = error as { stdout?: string; stderr?: string };
    throw new Error(`${command} ${args.join(' ')} failed:\n${stdout ?? ''}\n${stderr ?? ''}`);
  }
}

describe('the library packages installed from their tarballs', function () {
  this.timeout(15 * 60_000);
  const work = mkdtempSync(path.join(tmpdir(), 'runload-packed-'));
  const project = path.join(work, 'project');
  const packs = path.join(work, 'packs');
  const libraries = libraryPackages();
  const tarballs = new Map<string, string>();
  let fake: FakeComfyUI;

  before(async () => {
    run(process.execPath, [TSC, '-b', 'tsconfig.build.json'], ROOT);
    run('pnpm', ['--filter', '@runload/console', 'build'], ROOT);
    for (const { dir, manifest } of libraries) {
      const out = run('pnpm', ['pack', '--pack-destination', packs], dir).trim().split('\n').filter((l) => l.endsWith('.tgz')).at(-1);
      tarballs.set(manifest.name, out as string);
    }
    run('mkdir', ['-p', project], work);
    const dependencies = Object.fromEntries([...tarballs].map(([name, file]) => [name, `file:${file}`]));
    writeFileSync(
      path.join(project, 'package.json'),
      JSON.stringify({ name: 'embedding-check', private: true, type: 'module', dependencies: { ...dependencies, '@types/node': '20.19.43', chai: '6.3.0', mocha: '12.0.3' } }, null, 2),
    );
    writeFileSync(
      path.join(project, 'tsconfig.json'),
      JSON.stringify({ compilerOptions: { target: 'ES2022', module: 'NodeNext', moduleResolution: 'NodeNext', strict: true, outDir: 'out', types: ['node'], skipLibCheck: true }, include: ['*.ts'] }),
    );
    // One install for every check: sqlite3 compiles here when no prebuilt binary downloads.
    run('npm', ['install', '--no-audit', '--no-fund', '--loglevel=error'], project, { npm_config_nodedir: process.env['npm_config_nodedir'] ?? '/usr' });
    copyFileSync(path.join(ROOT, 'examples/workflows/text-to-image.api.json'), path.join(project, 'workflow.api.json'));
    writeFileSync(path.join(project, 'in-memory.ts'), embeddingExample('in-memory'));
    writeFileSync(path.join(project, 'production.ts'), embeddingExample('production'));
    fake = await startFakeComfyUI({ port: 0, executionMs: 200 });
  });

  after(async () => {
    await fake?.close();
    rmSync(work, { recursive: true, force: true });
  });

  it('packs every library package, the core and each adapter among them', () => {
    const names = [...tarballs.keys()];
    for (const name of ['@runload/core', '@runload/storage-adapter', '@runload/http-adapter', '@runload/redis-limiter', '@runload/gpu-adapter']) expect(names).to.include(name);
  });

  it('ships every entry its exports name, and no sources or tests', () => {
    for (const [name, file] of tarballs) {
      const listed = run('tar', ['tzf', file], work).split('\n').filter(Boolean);
      const manifest = JSON.parse(run('tar', ['xzf', file, '-O', 'package/package.json'], work)) as Manifest;
      for (const [entry, target] of Object.entries(manifest.exports)) {
        expect(Object.keys(target)[0], `${name} ${entry}: types first`).to.equal('types');
        expect(listed, `${name} ${entry}`).to.include(`package/${target.types.replace('./', '')}`);
        expect(listed, `${name} ${entry}`).to.include(`package/${target.default.replace('./', '')}`);
      }
      expect(listed.filter((f) => /^package\/(src|test)\//.test(f) || f.endsWith('.tsbuildinfo')), name).to.deep.equal([]);
      expect(listed, name).to.include.members(['package/README.md', 'package/LICENSE']);
      for (const range of Object.values(manifest.dependencies ?? {})) expect(range, `${name}: no workspace range left`).not.to.match(/^workspace:/);
    }
  });

  it('type-checks the embedding examples against the installed packages', () => {
    run(process.execPath, [TSC, '-p', '.'], project);
  });

  it('runs the in-memory embedding example', () => {
    expect(run(process.execPath, ['out/in-memory.js'], project)).to.match(/^run \S+ queued$/m);
  });

  it("runs the production embedding: SQLite storage, the dispatcher and createHttpApp serving a run on the fake ComfyUI", async () => {
    // Asynchronously: the fake ComfyUI answers from this process's event loop.
    const { stdout: output } = await promisify(execFile)(process.execPath, ['out/production.js'], { cwd: project, env: { ...process.env, COMFYUI_URL: fake.url }, timeout: 120_000 });
    expect(output).to.match(/^run \S+ succeeded, 1 output\(s\)$/m);
  });
});

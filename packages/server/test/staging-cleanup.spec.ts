/**
 * Staged uploads in the data directory survive CLI commands; a server removes, when it starts and
 * then at each sweep, only the ones a dead process left behind (idle for ten minutes).
 */
import { expect } from 'chai';
import { existsSync, mkdirSync, readdirSync, utimesSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { InMemoryExecutor } from '@runload/core/testing';
import { loadConfig, openRuntime } from '@runload/server';
import { cli, REPO_ROOT, tempDataDir } from './processes.js';

describe('staging cleanup of the local blob store', function () {
  this.timeout(60_000);
  const data = tempDataDir();
  const staging = path.join(data.dir, 'blobs', '.staging');
  after(() => data.remove());

  /** Makes `name` look untouched for `ms`. */
  const idleFor = (name: string, ms: number) => {
    const at = (Date.now() - ms) / 1000;
    utimesSync(path.join(staging, name), at, at);
  };

  it('a CLI command leaves staged files alone; a starting server removes those idle for ten minutes, not fresh ones', async () => {
    mkdirSync(staging, { recursive: true });
    writeFileSync(path.join(staging, 'abandoned'), 'x');
    writeFileSync(path.join(staging, 'in-progress'), 'y');
    idleFor('abandoned', 11 * 60_000);
    idleFor('in-progress', 9 * 60_000);

    const listed = await cli(['accounts', 'list'], { RUNLOAD_DATA_DIR: data.dir });
    expect(listed.code, listed.stderr).to.equal(0);
    expect(readdirSync(staging).sort()).to.deep.equal(['abandoned', 'in-progress']);

    const config = loadConfig({ RUNLOAD_DATA_DIR: data.dir, RUNLOAD_PORT: '0' }, REPO_ROOT);
    const server = await openRuntime(config, { dispatch: true, executor: new InMemoryExecutor() });
    await server.close();
    expect(readdirSync(staging)).to.deep.equal(['in-progress']);
  });

  it('a running server removes, at its next sweep, a staged file abandoned while it runs (a process killed mid-upload)', async () => {
    mkdirSync(staging, { recursive: true });
    const config = loadConfig({ RUNLOAD_DATA_DIR: data.dir, RUNLOAD_PORT: '0', RUNLOAD_SWEEP_SECONDS: '1' }, REPO_ROOT);
    const server = await openRuntime(config, { dispatch: true, executor: new InMemoryExecutor() });
    try {
      writeFileSync(path.join(staging, 'killed-upload'), 'partial bytes');
      writeFileSync(path.join(staging, 'live-upload'), 'bytes still coming');
      idleFor('killed-upload', 11 * 60_000);
      const deadline = Date.now() + 10_000;
      while (existsSync(path.join(staging, 'killed-upload')) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
      const left = readdirSync(staging);
      expect(left).to.not.include('killed-upload');
      expect(left).to.include('live-upload');
    } finally {
      await server.close();
    }
  });
});

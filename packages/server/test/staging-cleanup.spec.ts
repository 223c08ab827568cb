/**
 * Staged uploads in the data directory survive CLI commands; a starting server removes only the
 * ones a dead process left behind long ago.
 */
import { expect } from 'chai';
import { mkdirSync, readdirSync, utimesSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { InMemoryExecutor } from '@runload/core/testing';
import { loadConfig, openRuntime } from '@runload/server';
import { cli, REPO_ROOT, tempDataDir } from './processes.js';

describe('staging cleanup of the local blob store', function () {
  this.timeout(60_000);
  const data = tempDataDir();
  const staging = path.join(data.dir, 'blobs', '.staging');
  after(() => data.remove());

  it('a CLI command leaves staged files alone; a starting server removes those idle for a day, not fresh ones', async () => {
    mkdirSync(staging, { recursive: true });
    writeFileSync(path.join(staging, 'abandoned'), 'x');
    writeFileSync(path.join(staging, 'in-progress'), 'y');
    const twoDaysAgo = (Date.now() - 2 * 24 * 3600_000) / 1000;
    utimesSync(path.join(staging, 'abandoned'), twoDaysAgo, twoDaysAgo);

    const listed = await cli(['accounts', 'list'], { RUNLOAD_DATA_DIR: data.dir });
    expect(listed.code, listed.stderr).to.equal(0);
    expect(readdirSync(staging).sort()).to.deep.equal(['abandoned', 'in-progress']);

    const config = loadConfig({ RUNLOAD_DATA_DIR: data.dir, RUNLOAD_PORT: '0' }, REPO_ROOT);
    const server = await openRuntime(config, { dispatch: true, executor: new InMemoryExecutor() });
    await server.close();
    expect(readdirSync(staging)).to.deep.equal(['in-progress']);
  });
});

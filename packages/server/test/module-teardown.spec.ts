/**
 * Shutdown comes from the modules: each registers the stop of what it starts, when it starts it,
 * and shutdown runs those stops backwards. The order below is not written anywhere in the server:
 * it follows from what each part uses. One process also has one name for every part that claims.
 */
import { expect } from 'chai';
import { RUNLOAD_API, TEARDOWN, type Teardown } from '@runload/core';
import { InMemoryExecutor } from '@runload/core/testing';
import { HTTP_SERVER } from '@runload/http-adapter/module';
import { buildContainer, DISPATCHER, INSTANCE_OWNER, loadConfig, shutdown } from '@runload/server';
import { REPO_ROOT, tempDataDir } from './processes.js';

describe('the composition root: modules own their teardown', function () {
  this.timeout(30_000);
  const data = tempDataDir();
  after(() => data.remove());

  it('stops every part started, each before the parts it uses, the database last', async () => {
    const config = loadConfig({ RUNLOAD_DATA_DIR: data.dir, RUNLOAD_PORT: '0', RUNLOAD_LOG_LEVEL: 'silent' }, REPO_ROOT);
    const container = buildContainer(config, { dispatch: true, executor: new InMemoryExecutor() });
    const teardown = container.get<Teardown>(TEARDOWN);
    let closed = false;
    try {
      await container.getAsync(RUNLOAD_API);
      await container.getAsync(DISPATCHER);
      await container.getAsync(HTTP_SERVER);
      const started = teardown.names();
      expect(started[0], 'the database is opened first').to.equal('database');
      expect(started.at(-1), 'the HTTP server is started last').to.equal('http server');
      expect(started.indexOf('executor')).to.be.lessThan(started.indexOf('dispatcher'));
      expect(started, 'only the parts started, each once').to.have.members(['database', 'executor', 'dispatcher', 'http server']);
      await shutdown(container);
      closed = true;
      expect(teardown.closed).to.equal(true);
      let refused: unknown = null;
      await container.getAsync(RUNLOAD_API).catch((error: unknown) => (refused = error));
      expect(refused, 'a stopped container still resolves').to.be.instanceOf(Error);
    } finally {
      if (!closed) await shutdown(container);
    }
  });

  it('names the process once, for every part that claims or leases', async () => {
    const config = loadConfig({ RUNLOAD_DATA_DIR: data.dir, RUNLOAD_DATABASE_URL: 'postgres://nobody@127.0.0.1:1/none', RUNLOAD_LOG_LEVEL: 'silent' }, REPO_ROOT);
    const container = buildContainer(config, { dispatch: true, executor: new InMemoryExecutor() });
    try {
      const owner = container.get<string>(INSTANCE_OWNER);
      expect(owner).to.match(/^instance-[0-9a-f-]{36}$/);
      expect(container.get<string>(INSTANCE_OWNER)).to.equal(owner);
      // A second process (a second container) is another instance.
      const other = buildContainer(config, { dispatch: true, executor: new InMemoryExecutor() });
      expect(other.get<string>(INSTANCE_OWNER)).to.not.equal(owner);
      await shutdown(other);
    } finally {
      await shutdown(container);
    }
  });

  it('keeps the name it is given, and a stable one for a SQLite data directory', () => {
    const named = loadConfig({ RUNLOAD_DATA_DIR: data.dir, RUNLOAD_INSTANCE_ID: 'gpu-box-1' }, REPO_ROOT);
    expect(buildContainer(named, { dispatch: false, executor: new InMemoryExecutor() }).get<string>(INSTANCE_OWNER)).to.equal('gpu-box-1');
    const local = loadConfig({ RUNLOAD_DATA_DIR: data.dir }, REPO_ROOT);
    expect(buildContainer(local, { dispatch: false, executor: new InMemoryExecutor() }).get<string>(INSTANCE_OWNER)).to.equal(`local:${local.dataDir}`);
  });
});

import { expect } from 'chai';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { CoreError } from '@runload/core';
import { checkDatabase, KnexRunRepository, openDatabase } from '@runload/storage-adapter';

describe('an unreachable PostgreSQL', function () {
  this.timeout(15_000);
  it('fails fast with STORAGE_UNAVAILABLE and reports itself unhealthy', async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'runload-down-'));
    const db = openDatabase({ url: 'postgres://postgres@127.0.0.1:1/none', dataDir: dir });
    const started = Date.now();
    const error = await new KnexRunRepository(db).get('00000000-0000-4000-8000-000000000001').catch((e: unknown) => e);
    expect(CoreError.hasCode(error, 'STORAGE_UNAVAILABLE'), String(error)).to.equal(true);
    expect(Date.now() - started).to.be.below(6000);
    expect((await checkDatabase(db)).ok).to.equal(false);
    await db.destroy();
    rmSync(dir, { recursive: true, force: true });
  });
});

/** Tiers from the limits file on the CLI, and the CLI's changes in the audit trail. */
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { expect } from 'chai';
import { cli, cliJson, tempDataDir } from './processes.js';

describe('CLI tiers of the limits file', function () {
  this.timeout(60_000);
  const data = tempDataDir();
  const limitsFile = path.join(data.dir, 'limits.json');
  writeFileSync(limitsFile, JSON.stringify({ tiers: { enterprise: { runs_per_minute: 300, runs_per_hour: 5000, gpu_seconds_per_month: 1_000_000 } } }));
  const env = { RUNLOAD_DATA_DIR: data.dir, RUNLOAD_LIMITS_FILE: limitsFile };
  after(() => data.remove());

  it('puts an account on a tier the limits file defines, and refuses an unknown one listing the defined tiers', async () => {
    const account = await cliJson<{ account_id: string; tier: string }>(['accounts', 'create', '--name', 'Big Co', '--tier', 'enterprise'], env);
    expect(account.tier).to.equal('enterprise');
    const refused = await cli(['accounts', 'set-tier', account.account_id, 'gold', '--json'], env);
    expect(refused.code).to.equal(1);
    expect(JSON.parse(refused.stderr.trim())).to.deep.equal({
      error: { code: 'INVALID_REQUEST', message: 'Unknown tier "gold": use one of starter, plus, max, ultra, enterprise' },
    });
    const key = await cliJson<{ key_id: string }>(['keys', 'create', '--account', account.account_id, '--name', 'ci'], env);
    const listed = await cliJson<{ keys: { key_id: string; name: string | null; last_used_at: string | null }[] }>(['keys', 'list', '--account', account.account_id], env);
    expect(listed.keys).to.deep.equal([{ ...listed.keys[0], key_id: key.key_id, name: 'ci', last_used_at: null }]);
  });
});

/** `keys list --account ID`: what an operator checks before revoking, never a secret. */
import { expect } from 'chai';
import { cliJson, tempDataDir } from './processes.js';

describe('CLI keys list', function () {
  this.timeout(60_000);
  const data = tempDataDir();
  const env = { RUNLOAD_DATA_DIR: data.dir };
  after(() => data.remove());

  it('lists the ids, prefixes, creation and revocation times of the account keys, never the secrets', async () => {
    const { account_id: account } = await cliJson<{ account_id: string }>(['accounts', 'create', '--name', 'Ada', '--tier', 'starter', '--json'], env);
    const first = await cliJson<{ key_id: string; api_key: string }>(['keys', 'create', '--account', account, '--json'], env);
    const second = await cliJson<{ key_id: string; api_key: string }>(['keys', 'create', '--account', account, '--json'], env);
    await cliJson(['keys', 'revoke', first.key_id, '--json'], env);
    const listed = await cliJson<{ keys: { key_id: string; prefix: string; created_at: string; revoked_at: string | null }[] }>(['keys', 'list', '--account', account, '--json'], env);
    expect(listed.keys.map((k) => k.key_id)).to.deep.equal([first.key_id, second.key_id]);
    expect(listed.keys[0]?.revoked_at).to.be.a('string');
    expect(listed.keys[1]?.revoked_at).to.equal(null);
    expect(listed.keys[1]?.prefix).to.equal(second.api_key.split('_')[1]);
    const secret = second.api_key.split('_')[2] as string;
    expect(JSON.stringify(listed)).not.to.contain(secret);
  });
});

/** RUNLOAD_INSTANCE_ID names the owner of claims and leases in the database: one it cannot keep is refused at start. */
import { expect } from 'chai';
import { loadConfig } from '@runload/server';

describe('configuration: RUNLOAD_INSTANCE_ID', () => {
  it('refuses a name over 128 characters, in one line', () => {
    expect(() => loadConfig({ RUNLOAD_INSTANCE_ID: 'x'.repeat(200) })).to.throw('RUNLOAD_INSTANCE_ID must be at most 128 characters, got 200');
  });

  it('takes a name of 128 characters, counted as characters rather than UTF-16 units', () => {
    expect(loadConfig({ RUNLOAD_INSTANCE_ID: 'x'.repeat(128) }).instanceId).to.have.length(128);
    expect(loadConfig({ RUNLOAD_INSTANCE_ID: '🚀'.repeat(128) }).instanceId).to.equal('🚀'.repeat(128));
    expect(loadConfig({ RUNLOAD_INSTANCE_ID: '  ' }).instanceId).to.equal(null);
  });
});

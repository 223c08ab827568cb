/** The contract of MaintenanceLease. Every adapter runs it. */
import { expect } from 'chai';
import type { MaintenanceLease } from '../ports/maintenance-lease.js';

const T = Date.UTC(2026, 0, 1, 12, 0, 0, 0);
const at = (ms: number) => new Date(T + ms);

export function describeMaintenanceLeaseContract(name: string, setup: () => Promise<{ subject: MaintenanceLease; teardown?: () => Promise<void> }>): void {
  describe(`MaintenanceLease contract: ${name}`, () => {
    let leases: MaintenanceLease;
    let teardown: (() => Promise<void>) | undefined;
    beforeEach(async () => {
      const made = await setup();
      leases = made.subject;
      teardown = made.teardown;
    });
    afterEach(async () => teardown?.());

    it('gives a lease to one owner until it expires, lets the holder renew it, and keeps names apart', async () => {
      expect(await leases.acquire('sweep', 'a', at(1000), at(0))).to.equal(true);
      expect(await leases.acquire('sweep', 'b', at(1500), at(500))).to.equal(false);
      expect(await leases.acquire('other', 'b', at(1500), at(500))).to.equal(true);
      expect(await leases.acquire('sweep', 'a', at(2000), at(900))).to.equal(true);
      expect(await leases.acquire('sweep', 'b', at(2500), at(1500))).to.equal(false);
      expect(await leases.acquire('sweep', 'b', at(3000), at(2000))).to.equal(true);
      expect(await leases.acquire('sweep', 'a', at(3000), at(2100))).to.equal(false);
    });

    it('of many owners asking at once, exactly one gets a free lease', async () => {
      const got = await Promise.all(Array.from({ length: 8 }, (_, i) => leases.acquire('race', `o${i}`, at(1000), at(0))));
      expect(got.filter(Boolean)).to.have.length(1);
    });
  });
}

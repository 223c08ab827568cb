/** The contract of NameResolver. Every adapter runs it against a name server it controls. */
import { expect } from 'chai';
import type { NameResolver } from '../ports/name-resolver.js';

export interface NameResolverFixture {
  readonly subject: NameResolver;
  /** Makes the name answer these addresses (none: the name does not exist). */
  setAddresses(name: string, addresses: readonly string[]): Promise<void> | void;
  /** Makes every lookup fail (the name server stops answering). */
  breakResolver(): Promise<void> | void;
  teardown?: () => Promise<void>;
}

export function describeNameResolverContract(name: string, setup: () => Promise<NameResolverFixture>): void {
  describe(`NameResolver contract: ${name}`, () => {
    let f: NameResolverFixture;
    beforeEach(async () => {
      f = await setup();
    });
    afterEach(async () => f.teardown?.());

    it('answers every address of a name, IPv4 first, and follows changes', async () => {
      await f.setAddresses('gpu.pool.test', ['10.0.0.2', 'fd00::7', '10.0.0.1']);
      expect(await f.subject.resolve('gpu.pool.test')).to.have.members(['10.0.0.2', '10.0.0.1', 'fd00::7']);
      expect((await f.subject.resolve('gpu.pool.test'))[2]).to.equal('fd00::7');
      await f.setAddresses('gpu.pool.test', ['10.0.0.3']);
      expect(await f.subject.resolve('gpu.pool.test')).to.deep.equal(['10.0.0.3']);
    });

    it('answers no address for a name that does not exist', async () => {
      await f.setAddresses('gone.pool.test', []);
      expect(await f.subject.resolve('gone.pool.test')).to.deep.equal([]);
    });

    it('fails when the name server cannot answer', async () => {
      await f.setAddresses('gpu.pool.test', ['10.0.0.1']);
      await f.breakResolver();
      const error = await f.subject.resolve('gpu.pool.test').then(() => null, (e: unknown) => e);
      expect(error).to.be.instanceOf(Error);
    });
  });
}

/** The in-memory name resolver against its contract. */
import { InMemoryNameResolver } from '@runload/core/testing';
import { describeNameResolverContract } from '@runload/core/contract-tests';

describeNameResolverContract('in-memory', async () => {
  const subject = new InMemoryNameResolver();
  return {
    subject,
    setAddresses: (name, addresses) => void subject.names.set(name, [...addresses]),
    breakResolver: () => void (subject.failing = true),
  };
});

/** The pool's in-memory adapter against its contract. */
import { InMemoryAuditLog, InMemoryBackendRegistry } from '@runload/core/testing';
import { describeBackendRegistryContract } from '@runload/core/contract-tests';

describeBackendRegistryContract('in-memory', async () => {
  const audit = new InMemoryAuditLog();
  return { subject: new InMemoryBackendRegistry(audit), audit };
});

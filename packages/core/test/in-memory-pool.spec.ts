/** The pool's in-memory adapter against its contract. */
import { describeBackendRegistryContract, InMemoryAuditLog, InMemoryBackendRegistry } from '@runload/core/testing';

describeBackendRegistryContract('in-memory', async () => {
  const audit = new InMemoryAuditLog();
  return { subject: new InMemoryBackendRegistry(audit), audit };
});

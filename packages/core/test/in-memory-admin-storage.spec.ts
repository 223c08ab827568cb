import { createInMemoryPorts, InMemoryAdminTokenRepository, InMemoryAuditLog } from '@runload/core/testing';
import { describeAdminQueriesContract, describeAdminTokenRepositoryContract, describeAuditLogContract } from '@runload/core/contract-tests';

describeAdminTokenRepositoryContract('in-memory', async () => {
  const audit = new InMemoryAuditLog();
  return { subject: new InMemoryAdminTokenRepository(audit), audit };
});
describeAuditLogContract('in-memory', async () => {
  const subject = new InMemoryAuditLog();
  return { subject, record: async (entry) => subject.append(entry) };
});

describeAdminQueriesContract('in-memory', async () => {
  const ports = createInMemoryPorts();
  return { accounts: ports.accounts, runs: ports.runs, ledger: ports.gpuLedger, usage: ports.usage };
});

import { describeAdminTokenRepositoryContract, describeAuditLogContract, InMemoryAdminTokenRepository, InMemoryAuditLog } from '@runload/core/testing';

describeAdminTokenRepositoryContract('in-memory', async () => {
  const audit = new InMemoryAuditLog();
  return { subject: new InMemoryAdminTokenRepository(audit), audit };
});
describeAuditLogContract('in-memory', async () => {
  const subject = new InMemoryAuditLog();
  return { subject, record: async (entry) => subject.append(entry) };
});

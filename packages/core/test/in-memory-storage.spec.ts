import { InMemoryAccountRepository, InMemoryApiKeyRepository, InMemoryAppVersionRepository, InMemoryAssetRepository, InMemoryBlobStore, InMemoryGpuLedger, InMemoryMaintenanceLease, InProcessNamedLocks, InMemoryRunRepository } from '@runload/core/testing';
import { describeAccountRepositoryContract, describeApiKeyRepositoryContract, describeAppVersionRepositoryContract, describeAssetRepositoryContract, describeBlobStoreContract, describeGpuLedgerContract, describeRunRepositoryContract, describeMaintenanceLeaseContract, describeNamedLocksContract, STORAGE_CONTRACT_PARENTS } from '@runload/core/contract-tests';

describeAccountRepositoryContract('in-memory', async () => ({ subject: new InMemoryAccountRepository() }));
describeApiKeyRepositoryContract('in-memory', async () => ({ subject: new InMemoryApiKeyRepository() }));
describeAppVersionRepositoryContract('in-memory', async () => ({ subject: new InMemoryAppVersionRepository() }));
describeAssetRepositoryContract('in-memory', async () => {
  const runs = new InMemoryRunRepository();
  return { subject: new InMemoryAssetRepository(runs), runs };
});
// The parent versions' workflows, as a database holds them in the versions' rows.
const parentWorkflow = (id: string) => STORAGE_CONTRACT_PARENTS.appVersionWorkflows[id] ?? null;
describeRunRepositoryContract('in-memory', async () => ({ subject: new InMemoryRunRepository(undefined, parentWorkflow) }));
describeGpuLedgerContract('in-memory', async () => {
  const runs = new InMemoryRunRepository();
  return { subject: new InMemoryGpuLedger(runs), runs };
});
describeMaintenanceLeaseContract('in-memory', async () => ({ subject: new InMemoryMaintenanceLease() }));
describeNamedLocksContract('in-process', async () => {
  const locks = new InProcessNamedLocks();
  return { subject: locks, another: locks };
});
describeBlobStoreContract('in-memory', async () => {
  const subject = new InMemoryBlobStore();
  return {
    subject,
    teardown: async () => {
      if (subject.stagedCount !== 0) throw new Error(`${subject.stagedCount} staged blobs were neither committed nor discarded`);
    },
  };
});

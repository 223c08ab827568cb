import { describeBlobStoreContract, describeStorageContract, InMemoryAccountRepository, InMemoryApiKeyRepository, InMemoryAppVersionRepository, InMemoryAssetRepository, InMemoryBlobStore, InMemoryGpuLedger, InMemoryRunRepository } from '@runload/core/testing';

describeStorageContract('in-memory', async () => ({
  ports: {
    accounts: new InMemoryAccountRepository(),
    apiKeys: new InMemoryApiKeyRepository(),
    appVersions: new InMemoryAppVersionRepository(),
    assets: new InMemoryAssetRepository(),
    runs: new InMemoryRunRepository(),
    gpuLedger: new InMemoryGpuLedger(),
  },
}));

describeBlobStoreContract('in-memory', async () => ({ store: new InMemoryBlobStore() }));

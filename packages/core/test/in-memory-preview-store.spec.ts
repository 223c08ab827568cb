import { SystemClock } from '@runload/core';
import { InMemoryPreviewStore } from '@runload/core/testing';
import { describePreviewStoreContract } from '@runload/core/contract-tests';

describePreviewStoreContract('in memory', async () => ({ store: new InMemoryPreviewStore(new SystemClock()) }), { shared: false });

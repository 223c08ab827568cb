import { SystemClock } from '@runload/core';
import { describePreviewStoreContract, InMemoryPreviewStore } from '@runload/core/testing';

describePreviewStoreContract('in memory', async () => ({ store: new InMemoryPreviewStore(new SystemClock()) }), { shared: false });

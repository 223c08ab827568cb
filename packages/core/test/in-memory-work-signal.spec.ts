import { InMemoryWorkSignal } from '@runload/core/testing';
import { describeWorkSignalContract } from '@runload/core/contract-tests';

describeWorkSignalContract('in-process', async () => ({ signal: new InMemoryWorkSignal() }), { shared: false });

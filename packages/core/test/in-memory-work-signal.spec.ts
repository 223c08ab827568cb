import { describeWorkSignalContract, InMemoryWorkSignal } from '@runload/core/testing';

describeWorkSignalContract('in-process', async () => ({ signal: new InMemoryWorkSignal() }), { shared: false });

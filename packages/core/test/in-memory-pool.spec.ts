/** The pool's in-memory adapter against its contract. */
import { describeBackendRegistryContract, InMemoryBackendRegistry } from '@runload/core/testing';

describeBackendRegistryContract('in-memory', async () => ({ subject: new InMemoryBackendRegistry() }));

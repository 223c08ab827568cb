import { InMemoryStreamSlots, InMemoryIdempotencyStore, InMemoryRunRepository, InMemoryWebhookOutbox } from '@runload/core/testing';
import { describeIdempotencyStoreContract, describeStreamSlotsContract, describeWebhookOutboxContract } from '@runload/core/contract-tests';

describeIdempotencyStoreContract('in-memory', async () => {
  const runs = new InMemoryRunRepository();
  return { subject: new InMemoryIdempotencyStore(runs), runs };
});
describeWebhookOutboxContract('in-memory', async () => {
  const runs = new InMemoryRunRepository();
  return { subject: new InMemoryWebhookOutbox(runs), runs };
});
describeStreamSlotsContract('in-memory', async () => ({ subject: new InMemoryStreamSlots() }));

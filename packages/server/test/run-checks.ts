/** What a user checks of a run that must have finished exactly once, whatever was killed or stopped on the way. */
import { expect } from 'chai';
import { pngSize, type FakeComfyUI } from '@runload/fake-comfyui';
import type { ApiClient } from './client.js';

/**
 * Waits for the run to end and expects it `succeeded` with one readable PNG output, its prompt sent
 * to the backend once and executed there once. Returns the run's record.
 */
export async function expectSucceededOnce(api: ApiClient, fake: FakeComfyUI, runId: string): Promise<Record<string, unknown>> {
  const run = await api.waitFor(runId, ['succeeded', 'failed', 'canceled', 'expired'], 30_000);
  expect(run['status'], JSON.stringify(run['error'])).to.equal('succeeded');
  const outputs = run['outputs'] as { url: string }[];
  expect(outputs).to.have.length(1);
  expect(pngSize(await api.bytes(outputs[0]?.url ?? ''))).to.not.equal(null);
  const prompts = fake.prompts.filter((p) => p.extra_data['runload_run_id'] === runId);
  expect(prompts, 'sent to the backend once').to.have.length(1);
  expect(fake.executedCount(prompts[0]?.prompt_id ?? '')).to.equal(1);
  return run;
}

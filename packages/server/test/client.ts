/** A tiny HTTP client for end-to-end tests, speaking to a server process. */
import { waitFor as waitUntil } from '@runload/core/testing';
import { conformingFetch, createResponseChecker } from '@runload/api-schema/testing';

/** Every response the end-to-end suites receive is checked against the OpenAPI document. */
const checkedFetch = conformingFetch(createResponseChecker(), (input, init) => fetch(input, init));

export interface ApiClient {
  json<T = Record<string, unknown>>(method: string, path: string, body?: unknown): Promise<{ status: number; body: T; headers: Headers }>;
  upload(bytes: Buffer, filename: string): Promise<string>;
  waitFor(runId: string, statuses: readonly string[], timeoutMs?: number): Promise<Record<string, unknown>>;
  bytes(path: string): Promise<Buffer>;
}

export function apiClient(baseUrl: string, apiKey: string): ApiClient {
  const auth = { authorization: `Bearer ${apiKey}` };
  const client: ApiClient = {
    async json(method, path, body) {
      const res = await checkedFetch(`${baseUrl}${path}`, {
        method,
        headers: body === undefined ? auth : { ...auth, 'content-type': 'application/json' },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      });
      return { status: res.status, body: (await res.json()) as never, headers: res.headers };
    },
    async upload(bytes, filename) {
      const form = new FormData();
      form.append('file', new Blob([bytes]), filename);
      const res = await checkedFetch(`${baseUrl}/api/v1/assets`, { method: 'POST', headers: auth, body: form });
      if (res.status !== 201) throw new Error(`upload failed: ${res.status} ${await res.text()}`);
      return ((await res.json()) as { asset_id: string }).asset_id;
    },
    async waitFor(runId, statuses, timeoutMs = 20_000) {
      let last = 'unread';
      return waitUntil(
        async () => {
          const { status, body } = await client.json('GET', `/api/v1/runs/${runId}`);
          last = status === 200 ? String(body['status']) : `answered ${status}`;
          return status === 200 && statuses.includes(last) && body;
        },
        `run ${runId} to be ${statuses.join('|')}`,
        // Polls back off from 50 ms to 1 s, as a client should: a long wait (a failover under load)
        // must not spend the account's general limit, which the test's calls after it need.
        { timeoutMs, intervalMs: 50, maxIntervalMs: 1000 },
      ).catch((error: unknown) => {
        throw new Error(`${(error as Error).message}; it stayed ${last}`);
      });
    },
    async bytes(path) {
      const res = await checkedFetch(`${baseUrl}${path}`, { headers: auth });
      if (res.status !== 200) throw new Error(`GET ${path}: ${res.status}`);
      return Buffer.from(await res.arrayBuffer());
    },
  };
  return client;
}

import { CoreError } from './errors.js';
import { parseRunWebhook, type RunWebhook } from './webhook.js';

export interface RunRequest {
  readonly appVersionId: string | null;
  readonly inputs: Record<string, unknown>;
  /** Where to report the run's events, or null. */
  readonly webhook: RunWebhook | null;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

/**
 * Reads a run request body (already parsed JSON). `POST /runs` needs a string `app_version_id`;
 * `POST /apps/{id}` takes the id from the path and ignores one in the body.
 * @throws CoreError INVALID_REQUEST
 */
export function parseRunRequest(body: unknown, needsAppVersionId: boolean): RunRequest {
  if (!isPlainObject(body)) throw new CoreError('INVALID_REQUEST', 'The request body must be a JSON object');
  const inputs = body['inputs'];
  if (inputs === undefined) throw new CoreError('INVALID_REQUEST', 'The request body needs an "inputs" object');
  if (!isPlainObject(inputs)) throw new CoreError('INVALID_REQUEST', '"inputs" must be an object keyed <nodeId>:<widgetName>');
  const webhook = parseRunWebhook(body['webhook'], body['webhook_events']);
  if (!needsAppVersionId) return { appVersionId: null, inputs, webhook };
  const id = body['app_version_id'];
  if (typeof id !== 'string' || id.length === 0) {
    throw new CoreError('INVALID_REQUEST', 'The request body needs "app_version_id" as a string');
  }
  return { appVersionId: id, inputs, webhook };
}

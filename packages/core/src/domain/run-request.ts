import { CoreError } from './errors.js';

export interface RunRequest {
  readonly appVersionId: string | null;
  readonly inputs: Record<string, unknown>;
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
  if (!needsAppVersionId) return { appVersionId: null, inputs };
  const id = body['app_version_id'];
  if (typeof id !== 'string' || id.length === 0) {
    throw new CoreError('INVALID_REQUEST', 'The request body needs "app_version_id" as a string');
  }
  return { appVersionId: id, inputs };
}

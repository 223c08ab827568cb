/**
 * The shape of one operation of the API as data (its path, parameters, body and responses), apart
 * from the table of operations so that the admin operations and the public ones share it.
 * @module
 */
import type { TSchema } from '@sinclair/typebox';
import type { HeaderName } from './headers.js';

export interface ResponseSpec {
  readonly description: string;
  /** Body schemas by media type; none for an empty body. */
  readonly content?: Readonly<Record<string, TSchema>>;
  readonly headers?: readonly HeaderName[];
}

export interface Operation {
  readonly operationId: string;
  readonly method: 'get' | 'post' | 'patch' | 'delete';
  /** OpenAPI form: `/api/v1/runs/{id}`. */
  readonly path: string;
  readonly tag: 'runs' | 'assets' | 'apps' | 'account' | 'service' | 'admin';
  /** An admin operation: behind an admin token with this scope (GETs also with `read`), not an API key. */
  readonly adminScope?: 'accounts' | 'apps' | 'backends' | 'backends:register' | 'usage' | 'read';
  readonly summary: string;
  readonly description?: string;
  /** Behind the Bearer key, with the rate-limit headers (every `/api/v1` route). */
  readonly authenticated: boolean;
  /** The two run endpoints add the hour and GPU-quota headers. */
  readonly runLimits?: boolean;
  readonly pathParams?: Readonly<Record<string, string>>;
  readonly query?: TSchema;
  readonly jsonBody?: TSchema;
  readonly multipartBody?: TSchema;
  /** Accepts `Idempotency-Key`. */
  readonly idempotent?: boolean;
  readonly responses: Readonly<Record<number, ResponseSpec>>;
}

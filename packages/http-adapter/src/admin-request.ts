/** Reading an admin route's body, query and path id against the API's schemas. */
import type { IncomingMessage } from 'node:http';
import type { TSchema } from '@sinclair/typebox';
import { checkRequest } from '@runload/api-schema';
import { CoreError, isUuid } from '@runload/core';
import type { AdminRouteContext } from './admin-route.js';
import { readJsonBody } from './read-json-body.js';
import { param } from './routes.js';

/** The JSON body, checked against `schema`. @throws CoreError INVALID_REQUEST naming the field, PAYLOAD_TOO_LARGE */
export async function readAdminBody<T>(ctx: AdminRouteContext, schema: TSchema): Promise<T> {
  const body = await readJsonBody(ctx.event.req, undefined, ctx.event.runtime?.node?.req as IncomingMessage | undefined);
  if (body === null || typeof body !== 'object' || Array.isArray(body)) throw new CoreError('INVALID_REQUEST', 'The request body must be a JSON object');
  const problem = checkRequest(schema, body)[0];
  if (problem) {
    const field = problem.path.slice(1);
    throw new CoreError('INVALID_REQUEST', field ? `${field}: ${problem.message}` : `The request body ${problem.message.toLowerCase()}`);
  }
  return body as T;
}

/** The `:id` of the path, lower case; anything but a UUID names nothing. */
export function adminId(ctx: AdminRouteContext, notFound: (id: string) => CoreError): string {
  const id = param(ctx.event, 'id');
  if (!isUuid(id)) throw notFound(id);
  return id.toLowerCase();
}

/**
 * Checks real responses against the OpenAPI document: the route and status must be described,
 * and a JSON body must match the document's schema for them. HTTP test suites wrap their fetch
 * with it, so a response the document does not describe fails the test.
 * @module
 */
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { buildOpenApiDocument } from '../openapi-document.js';

type Json = Record<string, any>;
const DOC_ID = 'runload-openapi.json';

// ajv-formats is CommonJS: its default export arrives wrapped under some loaders.
const addFormats = ((addFormatsModule as unknown as { default?: unknown }).default ?? addFormatsModule) as (ajv: Ajv2020) => void;

const escapePointer = (segment: string) => segment.replace(/~/g, '~0').replace(/\//g, '~1');

export interface ResponseChecker {
  /** Throws an Error naming the route, the status and what does not fit. */
  check(method: string, url: string, response: Response): Promise<void>;
  readonly document: Json;
}

export function createResponseChecker(document: Json = buildOpenApiDocument()): ResponseChecker {
  const ajv = new Ajv2020({ strict: false, allErrors: true });
  addFormats(ajv);
  ajv.addFormat('binary', true);
  ajv.addSchema(document, DOC_ID);
  const paths = Object.keys(document['paths'] as Json).map((template) => ({
    template,
    regex: new RegExp(`^${template.replace(/\{[^}]+\}/g, '[^/]+').replace(/\./g, '\\.')}/?$`),
    literal: !template.includes('{'),
  }));

  function locate(method: string, pathname: string): { pointer: string; responses: Json } | null {
    const found = paths.filter((p) => p.regex.test(pathname)).sort((a, b) => Number(b.literal) - Number(a.literal));
    for (const p of found) {
      const op = (document['paths'] as Json)[p.template]?.[method];
      if (op) return { pointer: `#/paths/${escapePointer(p.template)}/${method}/responses`, responses: op.responses as Json };
    }
    return null;
  }

  return {
    document,
    async check(rawMethod, url, response) {
      const method = rawMethod.toLowerCase();
      const pathname = new URL(url, 'http://runload.test').pathname;
      const where = `${rawMethod.toUpperCase()} ${pathname} → ${response.status}`;
      let pointer: string;
      let spec: Json | undefined;
      const op = locate(method, pathname);
      if (op && op.responses[String(response.status)]) {
        pointer = `${op.pointer}/${response.status}`;
        spec = op.responses[String(response.status)] as Json;
      } else {
        // Unknown routes and wrong methods have their documented answers.
        const fallbacks: Record<number, string> = pathname.startsWith('/api/')
          ? { 401: 'Unauthorized', 403: 'Forbidden', 404: 'NotFound', 405: 'MethodNotAllowed', 429: 'TooManyRequests', 500: 'InternalError', 503: 'ServiceUnavailable' }
          : { 404: 'NotFound', 405: 'MethodNotAllowed' };
        if (method === 'options') fallbacks[204] = 'CorsPreflight';
        const fallback = op === null ? fallbacks[response.status] : undefined;
        if (!fallback) throw new Error(`${where}: the OpenAPI document does not describe this response`);
        pointer = `#/components/responses/${fallback}`;
        spec = (document['components'] as Json)['responses'][fallback] as Json;
      }
      if (!response.headers.has('x-request-id')) throw new Error(`${where}: no X-Request-Id`);
      const content = spec['content'] as Json | undefined;
      if (!content || method === 'head' || response.status === 204) return;
      const type = (response.headers.get('content-type') ?? '').split(';')[0]?.trim().toLowerCase() ?? '';
      const mediaType = Object.keys(content).find((m) => m === type || m === '*/*' || (m.endsWith('/*') && type.startsWith(m.slice(0, -1))));
      if (!mediaType) throw new Error(`${where}: Content-Type ${type || '(none)'} is not one of ${Object.keys(content).join(', ')}`);
      if (!mediaType.includes('json')) return;
      const body: unknown = await response.clone().json();
      const validate = ajv.getSchema(`${DOC_ID}${pointer}/content/${escapePointer(mediaType)}/schema`);
      if (!validate) throw new Error(`${where}: no schema at ${pointer}`);
      if (!validate(body)) {
        throw new Error(`${where}: the body does not match the document: ${ajv.errorsText(validate.errors)}\n${JSON.stringify(body).slice(0, 2000)}`);
      }
    },
  };
}

/** `fetch`-shaped function that checks every response it returns. */
export function conformingFetch(checker: ResponseChecker, inner: (input: string, init?: RequestInit) => Promise<Response>) {
  return async (input: string, init?: RequestInit): Promise<Response> => {
    const response = await inner(input, init);
    await checker.check(init?.method ?? 'GET', input, response);
    return response;
  };
}

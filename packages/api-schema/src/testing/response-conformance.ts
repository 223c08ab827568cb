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

  function locate(requested: string, pathname: string): { pointer: string; responses: Json } | null {
    const found = paths.filter((p) => p.regex.test(pathname)).sort((a, b) => Number(b.literal) - Number(a.literal));
    for (const p of found) {
      const item = (document['paths'] as Json)[p.template] as Json | undefined;
      // HEAD is documented once, as GET's answer without its body, unless a path documents its own.
      const method = requested === 'head' && !item?.['head'] ? 'get' : requested;
      const op = item?.[method] as Json | undefined;
      if (op) return { pointer: `#/paths/${escapePointer(p.template)}/${method}/responses`, responses: op['responses'] as Json };
    }
    return null;
  }

  function resolve(pointer: string): Json {
    return pointer
      .slice(2)
      .split('/')
      .map((p) => p.replace(/~1/g, '/').replace(/~0/g, '~'))
      .reduce<Json>((node, key) => node[key] as Json, document);
  }

  /** Null when the response fits the response object at `pointer`, else what does not fit. */
  async function checkBody(pointer: string, method: string, response: Response): Promise<string | null> {
    const content = resolve(pointer)['content'] as Json | undefined;
    if (!content || method === 'head' || response.status === 204) return null;
    const type = (response.headers.get('content-type') ?? '').split(';')[0]?.trim().toLowerCase() ?? '';
    const mediaType = Object.keys(content).find((m) => m === type || m === '*/*' || (m.endsWith('/*') && type.startsWith(m.slice(0, -1))));
    if (!mediaType) return `Content-Type ${type || '(none)'} is not one of ${Object.keys(content).join(', ')}`;
    if (!mediaType.includes('json')) return null;
    const body: unknown = await response.clone().json();
    const validate = ajv.getSchema(`${DOC_ID}${pointer}/content/${escapePointer(mediaType)}/schema`);
    if (!validate) return `no schema at ${pointer}`;
    if (validate(body)) return null;
    return `the body does not match ${pointer}: ${ajv.errorsText(validate.errors)}\n${JSON.stringify(body).slice(0, 2000)}`;
  }

  return {
    document,
    async check(rawMethod, url, response) {
      const method = rawMethod.toLowerCase();
      const pathname = new URL(url, 'http://runload.test').pathname;
      const where = `${rawMethod.toUpperCase()} ${pathname} → ${response.status}`;
      const op = locate(method, pathname);
      const fallbacks: Record<number, string> = pathname.startsWith('/api/')
        ? { 401: 'Unauthorized', 403: 'Forbidden', 404: 'NotFound', 405: 'MethodNotAllowed', 429: 'TooManyRequests', 500: 'InternalError', 503: 'ServiceUnavailable' }
        : { 404: 'NotFound', 405: 'MethodNotAllowed' };
      if (method === 'options') fallbacks[204] = 'CorsPreflight';
      const candidates: string[] = [];
      if (op && op.responses[String(response.status)]) candidates.push(`${op.pointer}/${response.status}`);
      // Unknown routes and wrong methods have their documented answers; so does a documented
      // route that this server does not serve (an older version, or one built without it).
      const fallback = fallbacks[response.status];
      if (fallback && (op === null || response.status === 404 || response.status === 405)) candidates.push(`#/components/responses/${fallback}`);
      if (candidates.length === 0) throw new Error(`${where}: the OpenAPI document does not describe this response`);
      if (!response.headers.has('x-request-id')) throw new Error(`${where}: no X-Request-Id`);
      const failures: string[] = [];
      for (const pointer of candidates) {
        const failure = await checkBody(pointer, method, response);
        if (failure === null) return;
        failures.push(failure);
      }
      throw new Error(`${where}: ${failures.join('; ')}`);
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

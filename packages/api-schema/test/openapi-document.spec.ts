import { expect } from 'chai';
import { Validator } from '@seriousme/openapi-schema-validator';
import { buildOpenApiDocument, ERROR_CODES, OPERATIONS } from '@runload/api-schema';

type Json = Record<string, any>;

describe('the OpenAPI document', () => {
  const document = buildOpenApiDocument() as Json;

  it('is a valid OpenAPI 3.1 document', async () => {
    const validator = new Validator();
    const result = await validator.validate(document);
    expect(result.errors ?? [], JSON.stringify(result.errors, null, 2)).to.deep.equal([]);
    expect(result.valid).to.equal(true);
    expect(validator.version).to.equal('3.1');
    const broken = structuredClone(document);
    broken['paths']['/api/v1/runs']['get']['responses']['200'] = { content: 5 };
    expect((await new Validator().validate(broken)).valid, 'the validator does catch a broken response').to.equal(false);
  });

  it('describes every operation once, HEAD in a sentence rather than beside every GET', () => {
    for (const op of OPERATIONS) {
      expect(document['paths'][op.path]?.[op.method], `${op.method} ${op.path}`).to.be.an('object');
      expect(document['paths'][op.path]['head'], `head ${op.path}`).to.equal(undefined);
    }
    expect(document['info']['description']).to.include('`HEAD` is answered wherever `GET` is');
    for (const [method, path] of [
      ['get', '/api/v1/apps'],
      ['get', '/api/v1/assets'],
      ['delete', '/api/v1/assets/{id}'],
      ['get', '/api/v1/runs/{id}/events'],
      ['get', '/metrics'],
      ['get', '/openapi.json'],
      ['get', '/docs'],
    ] as const) {
      expect(document['paths'][path]?.[method], `${method} ${path}`).to.be.an('object');
    }
  });

  it('names every error code of the API and the limit headers on every /api/v1 response', () => {
    const text = JSON.stringify(document);
    for (const code of ERROR_CODES) expect(text, code).to.include(`"${code}"`);
    for (const [path, item] of Object.entries(document['paths'] as Json)) {
      if (!path.startsWith('/api/v1')) continue;
      for (const [method, op] of Object.entries(item as Json)) {
        for (const status of ['401', '429', '500']) expect(op.responses[status], `${method} ${path} ${status}`).to.be.an('object');
        for (const [status, response] of Object.entries(op.responses as Json)) {
          expect(Object.keys((response as Json)['headers']), `${method} ${path} ${status}`).to.include.members([
            'X-Request-Id',
            'X-RateLimit-Minute-Limit',
            'X-RateLimit-Minute-Remaining',
            'X-RateLimit-Minute-Reset',
          ]);
        }
      }
    }
    const create = document['paths']['/api/v1/runs']['post'];
    expect(Object.keys(create.responses['201'].headers)).to.include.members(['Location', 'Idempotent-Replayed', 'X-GPU-Quota-Remaining', 'X-RateLimit-Hour-Limit']);
    expect(create.parameters.map((p: Json) => p['name'])).to.include('Idempotency-Key');
    expect(Object.keys(create.responses)).to.include.members(['400', '404', '409', '410', '413', '422', '429', '503']);
  });
});

export * from './primitives.js';
export * from './asset.js';
export * from './app.js';
export * from './run.js';
export * from './account.js';
export * from './health.js';
export * from './errors.js';
export * from './requests.js';
// Live previews.
export * from './preview.js';
export { HEADERS, API_HEADERS, RUN_HEADERS, type HeaderName } from './headers.js';
export { OPERATIONS, COMMON_API_RESPONSES, FALLBACK_RESPONSES, type Operation, type ResponseSpec } from './operations.js';
export { buildOpenApiDocument, type OpenApiOptions } from './openapi-document.js';
export { checkRequest, type RequestProblem } from './check-request.js';
export * from './admin.js';
export * from './backend.js';
export { ADMIN_OPERATIONS, COMMON_ADMIN_RESPONSES } from './admin-operations.js';
// The Comfy API v2 (its own document, /openapi-v2.json).
export * from './comfy-v2/schemas.js';
export { buildComfyV2Document, V2_OPERATIONS } from './comfy-v2/document.js';

export { createResponseChecker, conformingFetch, type ResponseChecker } from './response-conformance.js';

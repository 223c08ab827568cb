export { createResponseChecker, conformingFetch, type ResponseChecker } from './response-conformance.js';
export { parseCsv } from './parse-csv.js';

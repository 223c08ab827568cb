/** Kept so `testing/index.ts` resolves until it re-exports `executor-testing.ts`; the suite lives in `executor.contract.ts`. */
export * from './executor.contract.js';

/** Run-time validation of request bodies and query strings against their schemas. */
import type { TSchema } from '@sinclair/typebox';
import { TypeCompiler, type TypeCheck } from '@sinclair/typebox/compiler';

export interface RequestProblem {
  /** JSON pointer of the offending value: `''` for the whole body, `/inputs`, `/limit`… */
  readonly path: string;
  readonly message: string;
}

const compiled = new WeakMap<TSchema, TypeCheck<TSchema>>();

/** Every problem of `value` against `schema`; none when it fits. */
export function checkRequest(schema: TSchema, value: unknown): RequestProblem[] {
  let check = compiled.get(schema);
  if (!check) {
    check = TypeCompiler.Compile(schema);
    compiled.set(schema, check);
  }
  if (check.Check(value)) return [];
  const problems = [...check.Errors(value)].map((e) => ({ path: e.path, message: e.message }));
  return problems.length > 0 ? problems : [{ path: '', message: 'does not match' }];
}

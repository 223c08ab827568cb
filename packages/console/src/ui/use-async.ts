/**
 * One loading value as a single state: loading, ready with its value, or failed with a message.
 * @module
 */
import { useCallback, useEffect, useState } from 'preact/hooks';
import { describeError } from '../api.js';

export type Loaded<T> = { readonly state: 'loading' } | { readonly state: 'ready'; readonly value: T } | { readonly state: 'failed'; readonly message: string };

/** Loads with `load` whenever `deps` change; `reload` loads again. A late answer for old deps is dropped. */
export function useAsync<T>(load: (signal: AbortSignal) => Promise<T>, deps: readonly unknown[]): { loaded: Loaded<T>; reload: () => void } {
  const [loaded, setLoaded] = useState<Loaded<T>>({ state: 'loading' });
  const [round, setRound] = useState(0);
  useEffect(() => {
    const controller = new AbortController();
    setLoaded({ state: 'loading' });
    load(controller.signal).then(
      (value) => controller.signal.aborted || setLoaded({ state: 'ready', value }),
      (error: unknown) => controller.signal.aborted || setLoaded({ state: 'failed', message: describeError(error) }),
    );
    return () => controller.abort();
  }, [...deps, round]);
  const reload = useCallback(() => setRound((n) => n + 1), []);
  return { loaded, reload };
}

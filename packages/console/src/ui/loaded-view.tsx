/** Renders a loading value: a busy note, the error in an alert, or the content. */
import type { ComponentChildren } from 'preact';
import type { Loaded } from './use-async.js';

export function LoadedView<T>(props: { loaded: Loaded<T>; children: (value: T) => ComponentChildren }) {
  if (props.loaded.state === 'loading') return <p aria-busy="true">Loading…</p>;
  if (props.loaded.state === 'failed') return <p role="alert">{props.loaded.message}</p>;
  return <>{props.children(props.loaded.value)}</>;
}

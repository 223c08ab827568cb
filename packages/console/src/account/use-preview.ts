/**
 * The latest preview image of a running run, as a `blob:` URL. It is asked for at each preview
 * event of the run's stream (`tick`), at most every 500 ms; the image on screen stays until a
 * newer one has arrived. No preview (404) leaves nothing drawn.
 * @module
 */
import { useEffect, useRef, useState } from 'preact/hooks';
import { fetchBlob } from '../api.js';

const MIN_INTERVAL_MS = 500;

export function usePreview(secret: string, runId: string, tick: number, running: boolean): string | null {
  const [url, setUrl] = useState<string | null>(null);
  const lastAsked = useRef(0);
  useEffect(() => {
    if (!running || tick === 0) return;
    let stale = false;
    const timer = setTimeout(() => {
      lastAsked.current = Date.now();
      fetchBlob(secret, `/runs/${encodeURIComponent(runId)}/preview`).then(
        (blob) => {
          if (stale || !blob) return;
          setUrl((previous) => {
            if (previous) URL.revokeObjectURL(previous);
            return URL.createObjectURL(blob);
          });
        },
        () => undefined, // a preview is a nicety: a failed one leaves the last in place
      );
    }, Math.max(0, lastAsked.current + MIN_INTERVAL_MS - Date.now()));
    return () => {
      stale = true;
      clearTimeout(timer);
    };
  }, [secret, runId, tick, running]);
  useEffect(() => () => void setUrl((previous) => (previous && URL.revokeObjectURL(previous), null)), [runId]);
  return url;
}

/**
 * The latest preview image of a running run, as a `blob:` URL. It is asked for at each preview
 * event of the run's stream (`tick`), at most every 500 ms; the image on screen stays until a
 * newer one has arrived. No preview (404) leaves nothing drawn.
 * @module
 */
import { useEffect, useRef, useState } from 'preact/hooks';
import type { RunloadClient } from '@runload/client';

const MIN_INTERVAL_MS = 500;

export function usePreview(client: RunloadClient, runId: string, tick: number, running: boolean): string | null {
  const [url, setUrl] = useState<string | null>(null);
  const lastAsked = useRef(0);
  useEffect(() => {
    if (!running || tick === 0) return;
    let stale = false;
    const timer = setTimeout(() => {
      lastAsked.current = Date.now();
      client.getRunPreview(runId).then(
        ({ image }) => {
          if (stale) return;
          setUrl((previous) => {
            if (previous) URL.revokeObjectURL(previous);
            return URL.createObjectURL(image);
          });
        },
        () => undefined, // PREVIEW_NOT_FOUND (none any more) or a failure: the last one stays, or nothing
      );
    }, Math.max(0, lastAsked.current + MIN_INTERVAL_MS - Date.now()));
    return () => {
      stale = true;
      clearTimeout(timer);
    };
  }, [client, runId, tick, running]);
  useEffect(() => () => void setUrl((previous) => (previous && URL.revokeObjectURL(previous), null)), [runId]);
  return url;
}

/** The `blob:` URL of an asset from the session's cache; null until it has arrived, or without an asset. */
import { useEffect, useState } from 'preact/hooks';
import { useAccountSession } from './session-context.js';

export function useAssetUrl(assetId: string | undefined): string | null {
  const { assets } = useAccountSession();
  const [url, setUrl] = useState<string | null>(null);
  useEffect(() => {
    let current = true;
    setUrl(null);
    if (assetId) assets.urlOf(assetId).then((made) => current && setUrl(made), () => undefined);
    return () => {
      current = false;
    };
  }, [assetId]);
  return url;
}

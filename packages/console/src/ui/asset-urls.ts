/**
 * `blob:` URLs of assets, kept for the signed-in session so that going back a page or reopening a
 * run draws its images again without another request (each counts against the account's limit).
 * The oldest are let go past `capacity`.
 * @module
 */
import type { RunloadClient } from '@runload/client';

export class AssetUrls {
  private readonly urls = new Map<string, Promise<string>>();

  constructor(
    private readonly client: RunloadClient,
    private readonly capacity = 60,
  ) {}

  /** The asset's bytes as a `blob:` URL; a failed download is forgotten, so a later call tries again. */
  urlOf(assetId: string): Promise<string> {
    const known = this.urls.get(assetId);
    if (known) return known;
    const url = this.client.downloadAsset(assetId).then((blob) => URL.createObjectURL(blob));
    url.catch(() => this.urls.delete(assetId));
    this.urls.set(assetId, url);
    this.evict();
    return url;
  }

  /** Lets every URL go (at sign-out). */
  clear(): void {
    for (const url of this.urls.values()) url.then(URL.revokeObjectURL, () => undefined);
    this.urls.clear();
  }

  private evict(): void {
    for (const [assetId, url] of this.urls) {
      if (this.urls.size <= this.capacity) return;
      this.urls.delete(assetId);
      url.then(URL.revokeObjectURL, () => undefined);
    }
  }
}

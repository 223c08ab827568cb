/**
 * One output of a run, drawn by its kind: an image, a video or an audio player, each with a
 * download link. The bytes are fetched with the key and shown from a `blob:` URL.
 * @module
 */
import type { Run } from '@runload/client';
import { useAssetUrl } from '../ui/use-asset-url.js';

type Output = Run['outputs'][number];

export function OutputMedia(props: { output: Output }) {
  const { output } = props;
  const url = useAssetUrl(output.asset_id);
  if (!url) return <figure aria-busy="true">{output.filename}</figure>;
  const kind = output.content_type.split('/')[0];
  return (
    <figure class="output">
      {kind === 'image' ? <img src={url} alt={output.filename} /> : null}
      {kind === 'video' ? <video controls src={url} aria-label={output.filename} /> : null}
      {kind === 'audio' ? <audio controls src={url} aria-label={output.filename} /> : null}
      <figcaption>
        <a href={url} download={output.filename}>
          Download {output.filename}
        </a>
      </figcaption>
    </figure>
  );
}

/** A small image of a run's first image output, for the runs list. */
export function RunThumbnail(props: { run: Run }) {
  const image = props.run.outputs.find((o) => o.content_type.startsWith('image/'));
  const url = useAssetUrl(image?.asset_id);
  if (!image || !url) return null;
  return <img class="thumbnail" src={url} alt={image.filename} />;
}

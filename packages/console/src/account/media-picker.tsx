/**
 * A file picker for an IMAGE, VIDEO or AUDIO input: the chosen file uploads at once, with its
 * progress, and is shown from the local file while it goes. The input's value is the asset id.
 * @module
 */
import { useEffect, useState } from 'preact/hooks';
import type { AppInput } from '@runload/client';
import { uploadWithProgress } from '../api.js';
import { useAccountSession } from '../ui/session-context.js';
import { ProgressBar } from '../ui/progress-bar.js';

/** Where one picker stands; `local` is a `blob:` URL of the chosen file. */
export type Upload =
  | { readonly state: 'empty' }
  | { readonly state: 'uploading'; readonly local: string; readonly kind: string; readonly share: number }
  | { readonly state: 'uploaded'; readonly local: string; readonly kind: string; readonly assetId: string }
  | { readonly state: 'failed'; readonly message: string };

const ACCEPT: Record<string, string> = { IMAGE: 'image/*', VIDEO: 'video/*', AUDIO: 'audio/*' };

export function MediaPicker(props: { input: AppInput; onChange: (upload: Upload) => void }) {
  const { secret } = useAccountSession();
  const [upload, setUpload] = useState<Upload>({ state: 'empty' });
  const update = (next: Upload) => {
    setUpload(next);
    props.onChange(next);
  };
  const local = upload.state === 'uploading' || upload.state === 'uploaded' ? upload.local : null;
  // Progress makes new states with the same file: the URL is let go only when the file changes.
  useEffect(() => () => void (local && URL.revokeObjectURL(local)), [local]);
  const id = `input-${props.input.key}`;

  const choose = async (file: File | undefined) => {
    if (!file) return;
    const local = URL.createObjectURL(file);
    const kind = file.type.split('/')[0] ?? '';
    update({ state: 'uploading', local, kind, share: 0 });
    try {
      const asset = await uploadWithProgress(secret, file, (share) => setUpload({ state: 'uploading', local, kind, share }));
      update({ state: 'uploaded', local, kind, assetId: asset.asset_id });
    } catch (error) {
      update({ state: 'failed', message: error instanceof Error ? error.message : String(error) });
    }
  };

  return (
    <div class="media-picker">
      <label for={id}>{props.input.key}</label>
      <input id={id} type="file" accept={ACCEPT[props.input.type]} onChange={(e) => void choose(e.currentTarget.files?.[0])} />
      {upload.state === 'uploading' ? <ProgressBar label={`Uploading ${props.input.key}`} value={upload.share} max={1} /> : null}
      {upload.state === 'uploaded' ? <small>Uploaded as {upload.assetId}</small> : null}
      {upload.state === 'failed' ? <small role="alert">{upload.message}</small> : null}
      {upload.state === 'uploading' || upload.state === 'uploaded' ? <LocalPreview url={upload.local} kind={upload.kind} name={props.input.key} /> : null}
    </div>
  );
}

function LocalPreview(props: { url: string; kind: string; name: string }) {
  if (props.kind === 'image') return <img class="thumbnail" src={props.url} alt={`Chosen for ${props.name}`} />;
  if (props.kind === 'video') return <video controls src={props.url} aria-label={`Chosen for ${props.name}`} />;
  if (props.kind === 'audio') return <audio controls src={props.url} aria-label={`Chosen for ${props.name}`} />;
  return null;
}

/**
 * An app's page: a form built from its typed inputs, prefilled with the published values, and a
 * "Run" button that queues a run and opens its page.
 * @module
 */
import { useState } from 'preact/hooks';
import { RunloadError, type AppInput, type AppVersion } from '@runload/client';
import { describeError } from '../api.js';
import { navigate } from '../router.js';
import { useAccountSession } from '../ui/session-context.js';
import { LoadedView } from '../ui/loaded-view.js';
import { useAsync } from '../ui/use-async.js';
import { InputField } from './input-field.js';
import { MediaPicker, type Upload } from './media-picker.js';

const MEDIA = new Set<AppInput['type']>(['IMAGE', 'VIDEO', 'AUDIO']);

export function AppPage(props: { appVersionId: string }) {
  const { client } = useAccountSession();
  const { loaded } = useAsync((signal) => client.describeApp(props.appVersionId, signal), [props.appVersionId]);
  return <LoadedView loaded={loaded}>{(app) => <AppForm key={app.app_version_id} app={app} />}</LoadedView>;
}

type Submission = { readonly state: 'editing' } | { readonly state: 'sending' } | { readonly state: 'refused'; readonly message: string; readonly details: readonly string[] };

function AppForm(props: { app: AppVersion }) {
  const { client } = useAccountSession();
  const { app } = props;
  const [values, setValues] = useState<Record<string, unknown>>(() => Object.fromEntries(app.inputs.filter((i) => !MEDIA.has(i.type)).map((i) => [i.key, i.default])));
  const [uploads, setUploads] = useState<Record<string, Upload>>({});
  const [submission, setSubmission] = useState<Submission>({ state: 'editing' });
  const uploading = Object.values(uploads).some((u) => u.state === 'uploading');

  const submit = async (event: Event) => {
    event.preventDefault();
    setSubmission({ state: 'sending' });
    // A media input left empty keeps its published file; so does any value left out.
    const media = Object.entries(uploads).flatMap(([key, u]) => (u.state === 'uploaded' ? [[key, u.assetId] as const] : []));
    const inputs = Object.fromEntries([...Object.entries(values).filter(([, v]) => v !== undefined), ...media]);
    try {
      const created = await client.createRun(app.app_version_id, { inputs });
      navigate(`/runs/${created.run_id}`);
    } catch (error) {
      const details = RunloadError.is(error) && Array.isArray(error.details) ? error.details.map((d: { key?: string; reason?: string }) => `${d.key ?? ''}: ${d.reason ?? ''}`) : [];
      setSubmission({ state: 'refused', message: describeError(error), details });
    }
  };

  return (
    <section>
      <h1>{app.name}</h1>
      <form onSubmit={(e) => void submit(e)} aria-label={`Run ${app.name}`}>
        {app.inputs.map((input) =>
          MEDIA.has(input.type) ? (
            <MediaPicker key={input.key} input={input} onChange={(upload) => setUploads((all) => ({ ...all, [input.key]: upload }))} />
          ) : (
            <InputField key={input.key} input={input} value={values[input.key]} onChange={(value) => setValues((all) => ({ ...all, [input.key]: value }))} />
          ),
        )}
        {submission.state === 'refused' ? (
          <div role="alert">
            <p>{submission.message}</p>
            {submission.details.length > 0 ? (
              <ul>
                {submission.details.map((d) => (
                  <li key={d}>{d}</li>
                ))}
              </ul>
            ) : null}
          </div>
        ) : null}
        <button type="submit" disabled={uploading || submission.state === 'sending'} aria-busy={submission.state === 'sending'}>
          Run
        </button>
      </form>
    </section>
  );
}

/** An account's API keys: issue one (its secret shown here once) and revoke. Secrets are never listed. */
import { useState } from 'preact/hooks';
import { describeError } from '../api.js';
import { LoadedView } from '../ui/loaded-view.js';
import { useAsync } from '../ui/use-async.js';
import { formatTime } from '../ui/format.js';
import { useOperatorSession } from './operator-context.js';

export function AccountKeys(props: { accountId: string }) {
  const { admin } = useOperatorSession();
  const { loaded, reload } = useAsync((signal) => admin.listKeys(props.accountId, signal), [props.accountId]);
  const [issued, setIssued] = useState<string | null>(null);
  const [failure, setFailure] = useState<string | null>(null);
  const attempt = async (action: () => Promise<void>) => {
    setFailure(null);
    try {
      await action();
      reload();
    } catch (error) {
      setFailure(describeError(error));
    }
  };
  return (
    <>
      <h3>Keys</h3>
      <button type="button" onClick={() => void attempt(async () => setIssued((await admin.createKey(props.accountId)).api_key))}>
        Issue key
      </button>
      {issued ? (
        <p>
          New key, shown this once: <output aria-label="New API key">{issued}</output>
        </p>
      ) : null}
      {failure ? <p role="alert">{failure}</p> : null}
      <LoadedView loaded={loaded}>
        {({ keys }) => (
          <ul>
            {keys.map((key) => (
              <li key={key.key_id}>
                <code>{key.prefix}</code> {key.name ?? ''} <small>created {formatTime(key.created_at)}</small>{' '}
                {key.revoked_at ? (
                  <small>revoked {formatTime(key.revoked_at)}</small>
                ) : (
                  <button type="button" class="outline secondary" aria-label={`Revoke key ${key.prefix}`} onClick={() => void attempt(() => admin.revokeKey(key.key_id))}>
                    Revoke
                  </button>
                )}
              </li>
            ))}
          </ul>
        )}
      </LoadedView>
    </>
  );
}

/**
 * Accounts: the list, a form to create one, and for the chosen account its tier, suspension and
 * keys (issue one, shown once; revoke).
 * @module
 */
import { useState } from 'preact/hooks';
import { describeError } from '../api.js';
import { LoadedView } from '../ui/loaded-view.js';
import { useAsync } from '../ui/use-async.js';
import type { AdminAccount } from '@runload/client';
import { AccountKeys } from './account-keys.js';
import { useOperatorSession } from './operator-context.js';

export function AccountsPage() {
  const { admin } = useOperatorSession();
  const { loaded, reload } = useAsync(async (signal) => {
    const [accounts, tiers] = await Promise.all([admin.listAccounts({ limit: 100, signal }), admin.listTiers(signal)]);
    return { accounts: accounts.accounts, tiers: tiers.tiers.map((t) => t.name) };
  }, []);
  const [chosen, setChosen] = useState<string | null>(null);
  return (
    <section>
      <h1>Accounts</h1>
      <LoadedView loaded={loaded}>
        {({ accounts, tiers }) => (
          <>
            <CreateAccount tiers={tiers} onCreated={(account) => (setChosen(account.account_id), reload())} />
            <div class="table-scroll">
              <table>
                <thead>
                  <tr>
                    <th scope="col">Name</th>
                    <th scope="col">Tier</th>
                    <th scope="col">Status</th>
                    <th scope="col">Manage</th>
                  </tr>
                </thead>
                <tbody>
                  {accounts.map((account) => (
                    <tr key={account.account_id}>
                      <th scope="row">{account.name}</th>
                      <td>{account.tier}</td>
                      <td>{account.status}</td>
                      <td>
                        <button type="button" class="outline" aria-label={`Manage ${account.name}`} onClick={() => setChosen(account.account_id)}>
                          Manage
                        </button>
                      </td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
            {accounts
              .filter((a) => a.account_id === chosen)
              .map((account) => (
                <ManageAccount key={account.account_id} account={account} tiers={tiers} onChanged={reload} />
              ))}
          </>
        )}
      </LoadedView>
    </section>
  );
}

function CreateAccount(props: { tiers: readonly string[]; onCreated: (account: AdminAccount) => void }) {
  const { admin } = useOperatorSession();
  const [name, setName] = useState('');
  const [tier, setTier] = useState(props.tiers[0] ?? 'starter');
  const [failure, setFailure] = useState<string | null>(null);
  const submit = async (event: Event) => {
    event.preventDefault();
    setFailure(null);
    try {
      props.onCreated(await admin.createAccount(name.trim(), tier));
      setName('');
    } catch (error) {
      setFailure(describeError(error));
    }
  };
  return (
    <form onSubmit={(e) => void submit(e)} aria-label="Create an account">
      <fieldset role="group">
        <input aria-label="Account name" placeholder="Account name" required value={name} onInput={(e) => setName(e.currentTarget.value)} />
        <select aria-label="Tier of the new account" value={tier} onChange={(e) => setTier(e.currentTarget.value)}>
          {props.tiers.map((t) => (
            <option key={t} value={t}>
              {t}
            </option>
          ))}
        </select>
        <button type="submit">Create account</button>
      </fieldset>
      {failure ? <p role="alert">{failure}</p> : null}
    </form>
  );
}

function ManageAccount(props: { account: AdminAccount; tiers: readonly string[]; onChanged: () => void }) {
  const { admin } = useOperatorSession();
  const { account } = props;
  const [failure, setFailure] = useState<string | null>(null);
  const change = async (body: { tier?: string; status?: 'active' | 'suspended' }) => {
    setFailure(null);
    try {
      await admin.updateAccount(account.account_id, body);
      props.onChanged();
    } catch (error) {
      setFailure(describeError(error));
    }
  };
  return (
    <article aria-label={`Account ${account.name}`}>
      <h2>{account.name}</h2>
      <p>
        <small>{account.account_id}</small>
      </p>
      <label for="account-tier">Tier</label>
      <select id="account-tier" value={account.tier} onChange={(e) => void change({ tier: e.currentTarget.value })}>
        {props.tiers.map((t) => (
          <option key={t} value={t}>
            {t}
          </option>
        ))}
      </select>
      {account.status === 'active' ? (
        <button type="button" class="secondary" onClick={() => void change({ status: 'suspended' })}>
          Suspend
        </button>
      ) : (
        <button type="button" onClick={() => void change({ status: 'active' })}>
          Reactivate
        </button>
      )}
      {failure ? <p role="alert">{failure}</p> : null}
      <AccountKeys accountId={account.account_id} />
    </article>
  );
}

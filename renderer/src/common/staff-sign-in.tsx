/**
 * The staff sign-in screen of the register and of its back office: pick your name, type your PIN on the keyboard or the
 * on-screen keypad (44×44 px keys) (staff-session.ts). Wrong PINs are refused by the server (5 tries a minute
 * per register). Without a connection the register's sign-in lists the staff who signed in on it recently and checks
 * their PIN itself (staff-offline.ts); it keeps asking the server (on "online" and every few seconds) and
 * switches to the server's list as soon as it answers.
 */
import { useEffect, useId, useState, type FormEvent } from 'react';
import { useRegisterSession } from './session-context.ts';
import { isUnreachable, listOfflineSignInStaff, listSignInStaff, registerStaff$, signIn, type SignInStaff } from './staff-session.ts';

const NEEDS_CONNECTION = 'Signing in needs a connection to the server.';
/** How often the sign-in screen asks the server again while it cannot be reached (ms). */
const RETRY_MS = 5_000;

/** `message` says why a PIN is asked; `testId` names the screen for tests; `purpose` says what the sign-in is for (staff-session.ts `signIn`). */
export function StaffSignIn({
  message = 'The back office needs a staff member signed in on this register for the shift.',
  testId = 'staff-sign-in',
  purpose = 'backoffice',
}: { message?: string; testId?: string; purpose?: 'backoffice' | 'register' } = {}) {
  const { session } = useRegisterSession();
  const id = useId();
  const [staff, setStaff] = useState<SignInStaff[] | undefined>();
  const [offlineNote, setOfflineNote] = useState<string | undefined>();
  const [staffId, setStaffId] = useState('');
  const [pin, setPin] = useState('');
  const [error, setError] = useState<string | undefined>();
  const [busy, setBusy] = useState(false);
  // The back office after a reload: the staff member selling here is asked their PIN again (the token is memory only).
  const sellingHere = purpose === 'backoffice' ? registerStaff$.value?.staff : undefined;
  const shownMessage = sellingHere ? `${sellingHere.name} is signed in on this register: type the PIN again to open the back office.` : message;

  useEffect(() => {
    let current = true;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const choose = (list: SignInStaff[]) =>
      setStaffId((chosen) => (list.some((s) => s.id === chosen) ? chosen : ((list.find((s) => s.id === sellingHere?.id) ?? list[0])?.id ?? '')));
    const load = () => {
      if (timer) clearTimeout(timer);
      timer = undefined;
      listSignInStaff(session.registerToken).then(
        (list) => {
          if (!current) return;
          setStaff(list);
          setOfflineNote(undefined);
          setError((shown) => (shown === NEEDS_CONNECTION ? undefined : shown));
          choose(list);
        },
        async (err: unknown) => {
          if (!current) return;
          if (!isUnreachable(err)) {
            setError(String((err as Error).message));
            return;
          }
          timer = setTimeout(load, RETRY_MS);
          const offline = purpose === 'register' ? await listOfflineSignInStaff() : { staff: [], days: 0 };
          if (!current) return;
          if (offline.staff.length === 0) {
            setStaff(undefined);
            setOfflineNote(undefined);
            setError(NEEDS_CONNECTION);
            return;
          }
          setStaff(offline.staff);
          setOfflineNote(`No connection to the server: staff who signed in on this register in the last ${offline.days} days can sign in.`);
          choose(offline.staff);
        },
      );
    };
    load();
    window.addEventListener('online', load);
    return () => {
      current = false;
      if (timer) clearTimeout(timer);
      window.removeEventListener('online', load);
    };
  }, [session.registerToken, purpose, sellingHere?.id]);

  const onSubmit = async (event: FormEvent) => {
    event.preventDefault();
    setBusy(true);
    setError(undefined);
    try {
      await signIn(session.registerToken, staffId, pin, purpose);
    } catch (err) {
      setPin('');
      setError(isUnreachable(err) ? NEEDS_CONNECTION : (err as Error).message);
    } finally {
      setBusy(false);
    }
  };

  return (
    <main className="backoffice" data-testid={testId}>
      <section className="bo-section">
        <div className="bo-panel">
          <div className="bo-panel-header">
            {/* The register screen has its own h1; the back office's sign-in is a screen of its own (one h1 each). */}
            {purpose === 'register' ? <h2>Sign in</h2> : <h1 className="bo-h1">Sign in to the back office</h1>}
          </div>
          <p className="muted">{shownMessage}</p>
          {offlineNote ? (
            <p className="muted" role="status" data-testid="offline-sign-in-note">
              {offlineNote}
            </p>
          ) : null}
          <form className="bo-form" onSubmit={onSubmit} noValidate>
            {error ? (
              <p className="form-error" role="alert">
                {error}
              </p>
            ) : null}
            <div className="bo-row">
              <label className="bo-field" htmlFor={`${id}-staff`}>
                <span className="bo-label">Staff member</span>
                <select id={`${id}-staff`} className="bo-input" value={staffId} onChange={(e) => setStaffId(e.target.value)} disabled={!staff}>
                  {(staff ?? []).map((s) => (
                    <option key={s.id} value={s.id}>
                      {s.name} ({s.role})
                    </option>
                  ))}
                </select>
              </label>
              <label className="bo-field" htmlFor={`${id}-pin`}>
                <span className="bo-label">PIN</span>
                <input
                  id={`${id}-pin`}
                  className="bo-input"
                  type="password"
                  inputMode="numeric"
                  autoComplete="off"
                  maxLength={8}
                  value={pin}
                  onChange={(e) => setPin(e.target.value.replace(/\D/g, '').slice(0, 8))}
                />
              </label>
            </div>
            <div className="pin-keypad" role="group" aria-label="Keypad">
              {['1', '2', '3', '4', '5', '6', '7', '8', '9', 'clear', '0', 'back'].map((key) => (
                <button
                  key={key}
                  type="button"
                  className="button pin-key"
                  aria-label={key === 'clear' ? 'Clear' : key === 'back' ? 'Delete last digit' : `Digit ${key}`}
                  onClick={() => setPin((typed) => (key === 'clear' ? '' : key === 'back' ? typed.slice(0, -1) : (typed + key).slice(0, 8)))}
                >
                  {key === 'clear' ? 'C' : key === 'back' ? '⌫' : key}
                </button>
              ))}
            </div>
            <div className="bo-actions">
              <button type="submit" className="button button-primary" disabled={busy || !staffId || pin.length < 4}>
                {busy ? 'Signing in…' : 'Sign in'}
              </button>
            </div>
          </form>
        </div>
      </section>
    </main>
  );
}

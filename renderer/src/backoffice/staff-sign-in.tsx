/**
 * The staff sign-in screen of the register and of its back office: pick your name, type your PIN on the keyboard or the
 * on-screen keypad (44×44 px keys) (register/staff-session.ts). Wrong PINs are refused by the server (5 tries a minute
 * per register).
 */
import { useEffect, useId, useState, type FormEvent } from 'react';
import { useRegister } from '../register/register-context.ts';
import { listSignInStaff, signIn, type SignInStaff } from '../register/staff-session.ts';

/** `message` says why a PIN is asked; `testId` names the screen for tests; `purpose` says what the sign-in is for (staff-session.ts `signIn`). */
export function StaffSignIn({
  message = 'The back office needs a staff member signed in on this register for the shift.',
  testId = 'staff-sign-in',
  purpose = 'backoffice',
}: { message?: string; testId?: string; purpose?: 'backoffice' | 'register' } = {}) {
  const { session } = useRegister();
  const id = useId();
  const [staff, setStaff] = useState<SignInStaff[] | undefined>();
  const [staffId, setStaffId] = useState('');
  const [pin, setPin] = useState('');
  const [error, setError] = useState<string | undefined>();
  const [busy, setBusy] = useState(false);

  useEffect(() => {
    let current = true;
    listSignInStaff(session.registerToken).then(
      (list) => {
        if (!current) return;
        setStaff(list);
        setStaffId((chosen) => chosen || list[0]?.id || '');
      },
      (err: unknown) => current && setError(err instanceof TypeError ? 'Signing in needs a connection to the server.' : String((err as Error).message)),
    );
    return () => {
      current = false;
    };
  }, [session.registerToken]);

  const onSubmit = async (event: FormEvent) => {
    event.preventDefault();
    setBusy(true);
    setError(undefined);
    try {
      await signIn(session.registerToken, staffId, pin, purpose);
    } catch (err) {
      setPin('');
      setError(err instanceof TypeError ? 'Signing in needs a connection to the server.' : (err as Error).message);
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
          <p className="muted">{message}</p>
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
                <input id={`${id}-pin`} className="bo-input" type="password" inputMode="numeric" autoComplete="off" maxLength={8} value={pin} onChange={(e) => setPin(e.target.value.replace(/\D/g, '').slice(0, 8))} />
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

/**
 * The staff sign-in screen of the back office on a register: pick your name, type your PIN (register/staff-session.ts).
 * Wrong PINs are refused by the server (5 tries a minute per register).
 */
import { useEffect, useId, useState, type FormEvent } from 'react';
import { useRegister } from '../register/register-context.ts';
import { listSignInStaff, signIn, type SignInStaff } from '../register/staff-session.ts';

export function StaffSignIn() {
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
      await signIn(session.registerToken, staffId, pin);
    } catch (err) {
      setPin('');
      setError(err instanceof TypeError ? 'Signing in needs a connection to the server.' : (err as Error).message);
    } finally {
      setBusy(false);
    }
  };

  return (
    <main className="backoffice" data-testid="staff-sign-in">
      <section className="bo-section">
        <div className="bo-panel">
          <div className="bo-panel-header">
            <h2>Sign in</h2>
          </div>
          <p className="muted">The back office needs a staff member signed in on this register for the shift.</p>
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
                <input id={`${id}-pin`} className="bo-input" type="password" inputMode="numeric" autoComplete="off" maxLength={8} value={pin} onChange={(e) => setPin(e.target.value.replace(/\D/g, ''))} />
              </label>
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

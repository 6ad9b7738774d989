/**
 * Typing a one-time pairing code (`XXXX-XXXX`, from Back office → Registers on another register, or printed by the
 * server on start). Used on the first start of a register that cannot pair by itself, and when its credential was
 * revoked.
 */
import { useId, useState, type FormEvent } from 'react';
import { SignUpForm } from './sign-up-form.tsx';

export function PairingForm({ message, onPair }: { message: string; onPair: (code: string) => Promise<void> }) {
  const id = useId();
  const [code, setCode] = useState('');
  const [error, setError] = useState<string | undefined>();
  const [busy, setBusy] = useState(false);
  const [signingUp, setSigningUp] = useState(false);

  const onSubmit = async (event: FormEvent) => {
    event.preventDefault();
    setBusy(true);
    setError(undefined);
    try {
      await onPair(code);
    } catch (err) {
      setError(err instanceof TypeError ? 'Pairing needs a connection to the server.' : (err as Error).message);
    } finally {
      setBusy(false);
    }
  };

  if (signingUp) return <SignUpForm onPair={onPair} onCancel={() => setSigningUp(false)} />;
  return (
    <form className="pairing-form" onSubmit={onSubmit} noValidate data-testid="pairing-form">
      <p>{message}</p>
      {error ? (
        <p className="form-error" role="alert">
          {error}
        </p>
      ) : null}
      <label htmlFor={`${id}-code`}>Pairing code</label>
      <input
        id={`${id}-code`}
        className="bo-input"
        value={code}
        autoComplete="off"
        autoCapitalize="characters"
        spellCheck={false}
        maxLength={12}
        placeholder="XXXX-XXXX"
        onChange={(e) => setCode(e.target.value)}
      />
      <button type="submit" className="button button-primary button-large" disabled={busy || code.replace(/[\s-]/g, '').length !== 8}>
        {busy ? 'Pairing…' : 'Pair this register'}
      </button>
      <p className="pairing-sign-up">
        New to Register?{' '}
        <button type="button" className="button button-link" onClick={() => setSigningUp(true)}>
          Create a store
        </button>
      </p>
    </form>
  );
}

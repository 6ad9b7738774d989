/** Small building blocks shared by the back-office screens: online state, the API for the session, form fields. */
import { useEffect, useMemo, useState, type ReactNode } from 'react';
import { useRegisterSession } from './session-context.ts';
import { staffSession$ } from './staff-session.ts';
import { useObservable } from '../ui/hooks.ts';
import { BackOfficeApi, OfflineError, errorMessage } from './back-office-api.ts';

/** `navigator.onLine`, kept current by the `online` / `offline` events. */
export function useOnline(): boolean {
  const [online, setOnline] = useState(() => navigator.onLine);
  useEffect(() => {
    const update = () => setOnline(navigator.onLine);
    window.addEventListener('online', update);
    window.addEventListener('offline', update);
    return () => {
      window.removeEventListener('online', update);
      window.removeEventListener('offline', update);
    };
  }, []);
  return online;
}

/** The back-office API client for the staff member signed in on this register (staff-sign-in.tsx). */
export function useApi(): BackOfficeApi {
  const staff = useObservable(staffSession$, staffSession$.value);
  return useMemo(() => new BackOfficeApi(staff?.staffToken ?? ''), [staff?.staffToken]);
}

/** The currency of the store (for formatMoney and amount parsing). */
export function useCurrency(): string {
  return useRegisterSession().session.currency || 'USD';
}

/**
 * Escape closes a dialog even when focus fell back to the page body (a focused button disabled while it worked
 * drops focus there, out of the dialog's own Escape handler).
 */
export function useEscapeFromBody(onClose: () => void): void {
  useEffect(() => {
    const onKey = (event: KeyboardEvent) => {
      if (event.key === 'Escape' && (document.activeElement === document.body || document.activeElement === null)) onClose();
    };
    document.addEventListener('keydown', onKey);
    return () => document.removeEventListener('keydown', onKey);
  }, [onClose]);
}

/** The "needs a connection" state; the register keeps selling meanwhile. */
export function NeedsConnection({ what }: { what: string }) {
  return (
    <section className="bo-offline" data-testid="backoffice-offline" role="status">
      <h2>{what} needs a connection</h2>
      <p className="muted">
        The back office reads and changes data on the server. The register keeps selling offline; come back here once the connection is back.
      </p>
    </section>
  );
}

/** A message for a failed load: the offline state for {@link OfflineError}, else the problem detail. */
export function LoadError({ error, what }: { error: unknown; what: string }) {
  if (error instanceof OfflineError) return <NeedsConnection what={what} />;
  return (
    <p className="form-error" role="alert">
      {errorMessage(error)}
    </p>
  );
}

interface FieldProps {
  label: string;
  error?: string | undefined;
  hint?: string;
  children: (props: { id: string; 'aria-invalid': boolean; 'aria-describedby'?: string }) => ReactNode;
  id: string;
  className?: string;
}

/** A labelled field with its error underneath (`role="alert"`, linked with aria-describedby). */
export function Field({ label, error, hint, children, id, className }: FieldProps) {
  const errorId = `${id}-error`;
  return (
    <div className={className ? `bo-field ${className}` : 'bo-field'}>
      <label htmlFor={id}>{label}</label>
      {children({ id, 'aria-invalid': Boolean(error), ...(error ? { 'aria-describedby': errorId } : {}) })}
      {hint && !error ? <span className="muted bo-hint">{hint}</span> : null}
      {error ? (
        <span className="bo-field-error" id={errorId} role="alert" data-testid="field-error">
          {error}
        </span>
      ) : null}
    </div>
  );
}

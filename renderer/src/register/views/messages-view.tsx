import { useEffect, useState } from 'react';
import { useRegister } from '../register-context.ts';
import { REGISTER_SCHEMA_VERSION } from '../session.ts';

interface SmsMessage {
  id: string;
  to: string;
  body: string;
  createdAt: string;
  status: string;
}

/** Back office: the SMS outbox (Text-to-Pay links sent). Online only — it reads the server. */
export function MessagesView() {
  const { session } = useRegister();
  const [messages, setMessages] = useState<SmsMessage[] | undefined>();
  const [error, setError] = useState<string | undefined>();

  useEffect(() => {
    const controller = new AbortController();
    fetch('/api/pos/sms-outbox', {
      headers: { authorization: `Bearer ${session.staffToken}`, 'x-register-schema-version': REGISTER_SCHEMA_VERSION },
      signal: controller.signal,
    })
      .then(async (response) => {
        if (!response.ok) throw new Error(`HTTP ${response.status}`);
        const body = (await response.json()) as { data: SmsMessage[] };
        setMessages(body.data);
      })
      .catch((err: unknown) => {
        if (!controller.signal.aborted) setError(err instanceof TypeError ? 'The SMS outbox needs a connection to the server.' : `Could not load the outbox (${String(err)}).`);
      });
    return () => controller.abort();
  }, [session.staffToken]);

  return (
    <main className="messages">
      <header className="page-header">
        <h1>SMS outbox</h1>
        <p className="muted">Text-to-Pay messages sent to customers.</p>
      </header>
      {error ? <p className="form-error">{error}</p> : null}
      {!messages && !error ? <p className="muted">Loading…</p> : null}
      {messages && messages.length === 0 ? <p className="muted">No messages yet.</p> : null}
      {messages && messages.length > 0 ? (
        <table className="orders-table">
          <thead>
            <tr>
              <th scope="col">Sent</th>
              <th scope="col">To</th>
              <th scope="col">Message</th>
              <th scope="col">Status</th>
            </tr>
          </thead>
          <tbody>
            {messages.map((m) => (
              <tr key={m.id} data-testid="sms-row">
                <td>{new Date(m.createdAt).toLocaleString()}</td>
                <td>{m.to}</td>
                <td className="message-body">{m.body}</td>
                <td>{m.status}</td>
              </tr>
            ))}
          </tbody>
        </table>
      ) : null}
    </main>
  );
}

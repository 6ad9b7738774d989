import { useEffect, useState } from 'react';
import { DataTable } from '../../ui/data-table.tsx';
import { useRegister } from '../register-context.ts';
import { REGISTER_SCHEMA_VERSION } from '../../common/session.ts';
import { describeSmsSegments, type SmsEncoding } from '../../../../core/index.ts';

interface SmsMessage {
  id: string;
  to: string;
  body: string;
  createdAt: string;
  status: string;
  encoding: SmsEncoding;
  segments: number;
  providerCode?: string | null;
}

/** Back office: the SMS outbox (Text-to-Pay links sent). Online only — it reads the server. */
export function MessagesView() {
  const { session } = useRegister();
  const [messages, setMessages] = useState<SmsMessage[] | undefined>();
  const [error, setError] = useState<string | undefined>();

  useEffect(() => {
    const controller = new AbortController();
    fetch('/api/pos/sms-outbox', {
      headers: { authorization: `Bearer ${session.registerToken}`, 'x-register-schema-version': REGISTER_SCHEMA_VERSION },
      signal: controller.signal,
    })
      .then(async (response) => {
        if (!response.ok) throw new Error(`HTTP ${response.status}`);
        const body = (await response.json()) as { data: SmsMessage[] };
        setMessages(body.data);
      })
      .catch((err: unknown) => {
        if (!controller.signal.aborted)
          setError(err instanceof TypeError ? 'The SMS outbox needs a connection to the server.' : `Could not load the outbox (${String(err)}).`);
      });
    return () => controller.abort();
  }, [session.registerToken]);

  return (
    <main className="messages">
      <header className="page-header">
        <h1>SMS outbox</h1>
        <p className="muted">Text-to-Pay messages sent to customers.</p>
      </header>
      {error ? <p className="form-error">{error}</p> : null}
      {!messages && !error ? <p className="muted">Loading…</p> : null}
      {messages ? (
        <DataTable
          className="orders-table"
          caption="Messages sent"
          captionHidden
          columns={[
            { key: 'sent', header: 'Sent', cell: (m) => new Date(m.createdAt).toLocaleString() },
            { key: 'to', header: 'To', cell: (m) => m.to },
            { key: 'body', header: 'Message', className: 'message-body', cell: (m) => m.body },
            { key: 'segments', header: 'Size', cell: (m) => describeSmsSegments(m) },
            { key: 'status', header: 'Status', cell: (m) => (m.providerCode ? `${m.status} (${m.providerCode})` : m.status) },
          ]}
          rows={messages}
          rowKey={(m) => m.id}
          rowAttributes={() => ({ 'data-testid': 'sms-row' })}
          emptyText="No messages yet."
          emptyClassName="muted"
        />
      ) : null}
    </main>
  );
}

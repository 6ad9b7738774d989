/**
 * Sending the receipt from the register: by e-mail or SMS, to the address the customer gives — offered
 * from the sale's customer (their e-mail, else their phone), when one is attached. The server
 * queues it in its e-mail or SMS outbox (`POST /api/pos/orders/{id}/receipts` with the register's credential), so the
 * sale must have synced first: before that the register says so and the cashier tries again a moment later.
 *
 * What it shows is what the server holds: "queued" once the outbox has the message, then its delivery state as the
 * server learns it (sent, delivered, bounced, failed, opted out — `GET /api/pos/messages/latest?subjectRef=order:…`,
 * read every 2 s until the state is final or the screen closes), never "sent" before it was.
 */
import { useEffect, useState } from 'react';
import { REGISTER_SCHEMA_VERSION } from '../../common/session.ts';

/** How each delivery state reads on the register. */
const STATE_LABELS: Record<string, string> = {
  queued: 'queued',
  sending: 'sending',
  sent: 'sent',
  delivered: 'delivered',
  bounced: 'bounced — the address does not take mail',
  complained: 'sent — the customer marked it as spam',
  suppressed: 'not sent — this address bounced or complained before',
  failed: 'failed',
  undelivered: 'not delivered',
  opted_out: 'not sent — this number replied STOP',
};
/** States after which nothing changes any more. */
const FINAL_STATES = new Set(['delivered', 'bounced', 'complained', 'suppressed', 'failed', 'undelivered', 'opted_out']);
/** States that mean the customer did not get it. */
const FAILED_STATES = new Set(['bounced', 'suppressed', 'failed', 'undelivered', 'opted_out']);

interface SendReceiptProps {
  orderId: string;
  registerToken: string;
  /** The sale has reached the server (its receipt can be sent). */
  isSynced: boolean;
  /** The sale's customer: their e-mail and phone are offered as the address. */
  customer?: { email?: string | null; phone?: string | null } | undefined;
}

export function SendReceipt({ orderId, registerToken, isSynced, customer }: SendReceiptProps) {
  const offered = (c: 'email' | 'sms') => (c === 'email' ? customer?.email : customer?.phone) ?? '';
  const [channel, setChannel] = useState<'email' | 'sms'>(() => (!customer?.email && customer?.phone ? 'sms' : 'email'));
  const [to, setTo] = useState(() => offered(channel));
  // The customer's address arrives after the first render (the local database is read asynchronously).
  const [offeredFor, setOfferedFor] = useState(customer ? `${customer.email ?? ''}|${customer.phone ?? ''}` : '');
  const key = customer ? `${customer.email ?? ''}|${customer.phone ?? ''}` : '';
  if (key !== offeredFor) {
    setOfferedFor(key);
    const next = !customer?.email && customer?.phone ? 'sms' : 'email';
    if (!to) {
      setChannel(next);
      setTo(offered(next));
    }
  }
  const choose = (c: 'email' | 'sms') => {
    // Switching the channel offers the customer's other address, unless the cashier typed one.
    if (!to || to === offered(channel)) setTo(offered(c));
    setChannel(c);
  };
  const [status, setStatus] = useState<{ text: string; isError: boolean } | undefined>();
  const [isBusy, setBusy] = useState(false);
  /** The message last queued: its channel and recipient, followed until its state is final. */
  const [tracked, setTracked] = useState<{ channel: 'email' | 'sms'; to: string } | undefined>();

  useEffect(() => {
    if (!tracked) return;
    let stopped = false;
    let timer: ReturnType<typeof setTimeout> | undefined;
    let reads = 0;
    const read = async () => {
      try {
        const response = await fetch(`/api/pos/messages/latest?subjectRef=${encodeURIComponent(`order:${orderId}`)}`, {
          headers: { authorization: `Bearer ${registerToken}`, 'x-register-schema-version': REGISTER_SCHEMA_VERSION },
        });
        if (response.ok && !stopped) {
          const latest = (await response.json()) as Record<
            'email' | 'sms',
            { status: string; lastError?: string | null; providerCode?: string | null } | null
          >;
          const message = latest[tracked.channel];
          if (message) {
            const reason = message.lastError ?? message.providerCode;
            const failed = FAILED_STATES.has(message.status);
            setStatus({
              text: `Receipt to ${tracked.to}: ${STATE_LABELS[message.status] ?? message.status}${failed && reason ? ` (${reason})` : ''}`,
              isError: failed,
            });
            // An e-mail handed to the mail server is as far as it goes here; a text goes on to delivered.
            if (FINAL_STATES.has(message.status) || (tracked.channel === 'email' && message.status === 'sent')) return;
          }
        }
      } catch {
        // Offline for a moment: the state shown stays what it was, and the next read tries again.
      }
      // Read for at most 5 minutes: a carrier that never reports back leaves the last state shown.
      if (!stopped && ++reads < 150) timer = setTimeout(() => void read(), 2_000);
    };
    void read();
    return () => {
      stopped = true;
      clearTimeout(timer);
    };
  }, [tracked, orderId, registerToken]);

  const send = async () => {
    if (!to.trim())
      return setStatus({ text: channel === 'email' ? 'Type the customer’s e-mail address.' : 'Type the customer’s phone number.', isError: true });
    if (!isSynced) return setStatus({ text: 'The sale has not reached the server yet: send it once it shows Synced.', isError: true });
    setBusy(true);
    setStatus(undefined);
    try {
      const response = await fetch(`/api/pos/orders/${encodeURIComponent(orderId)}/receipts`, {
        method: 'POST',
        headers: {
          authorization: `Bearer ${registerToken}`,
          'x-register-schema-version': REGISTER_SCHEMA_VERSION,
          'content-type': 'application/json',
          'idempotency-key': crypto.randomUUID(),
        },
        body: JSON.stringify({ channel, to: to.trim() }),
      });
      if (!response.ok) {
        const problem = (await response.json().catch(() => ({}))) as { detail?: string; errors?: { message: string }[] };
        setStatus({ text: `Not sent: ${problem.errors?.[0]?.message ?? problem.detail ?? `HTTP ${response.status}`}`, isError: true });
        return;
      }
      const queued = (await response.json()) as { to: string };
      setStatus({ text: `Receipt to ${queued.to}: queued`, isError: false });
      setTracked({ channel, to: queued.to });
    } catch {
      setStatus({ text: 'The register is offline: send the receipt once it is back online.', isError: true });
    } finally {
      setBusy(false);
    }
  };

  return (
    <form
      className="send-receipt"
      aria-label="Send the receipt"
      onSubmit={(e) => {
        e.preventDefault();
        void send();
      }}
    >
      <fieldset className="line-dialog-row">
        <legend>Send the receipt</legend>
        <label className="choice-inline">
          <input
            type="radio"
            name="receipt-channel"
            checked={channel === 'email'}
            onChange={() => choose('email')}
            data-testid="receipt-channel-email"
          />{' '}
          E-mail
        </label>
        <label className="choice-inline">
          <input type="radio" name="receipt-channel" checked={channel === 'sms'} onChange={() => choose('sms')} data-testid="receipt-channel-sms" />{' '}
          SMS
        </label>
        <label className="visually-hidden" htmlFor="receipt-to">
          {channel === 'email' ? 'E-mail address' : 'Phone number'}
        </label>
        <input
          id="receipt-to"
          className="input receipt-to"
          data-testid="receipt-to"
          type={channel === 'email' ? 'email' : 'tel'}
          autoComplete="off"
          placeholder={channel === 'email' ? 'name@example.com' : '+1 415 555 0123'}
          value={to}
          onChange={(e) => setTo(e.target.value)}
        />
        <button type="submit" className="button" disabled={isBusy} data-testid="receipt-send">
          {isBusy ? 'Sending…' : 'Send'}
        </button>
      </fieldset>
      <p className={status?.isError ? 'form-error' : 'muted'} role="status" data-testid="receipt-send-status">
        {status?.text ?? ''}
      </p>
    </form>
  );
}

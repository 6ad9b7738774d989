/**
 * How the back office words a message's delivery state (docs/decisions/0095-messages-view-and-demo-outbox.md), and
 * the "latest message" line shown where a message was sent from: an invoice, a pay request, an order's receipt.
 */
import type { EmailMessage, SmsMessage } from '../common/back-office-api.ts';
import { useBackOfficeData } from '../common/back-office-query.ts';

/** Every state of both outboxes, worded for a person. */
export const MESSAGE_STATE_TEXT: Record<EmailMessage['status'] | SmsMessage['status'], string> = {
  queued: 'Queued',
  sending: 'Sending',
  sent: 'Sent',
  delivered: 'Delivered',
  bounced: 'Bounced',
  complained: 'Complained',
  suppressed: 'Suppressed',
  failed: 'Failed',
  opted_out: 'Opted out',
};

/** Whether the state may still change on its own: queued or sending, or a text sent but not yet delivered. */
function inFlight(m: EmailMessage | SmsMessage | null, channel: 'email' | 'sms'): boolean {
  return m !== null && (m.status === 'queued' || m.status === 'sending' || (channel === 'sms' && m.status === 'sent'));
}

/** Why a message is in its state, when the state needs a reason: the server's answer, the carrier's code, a retry time. */
export function messageReason(m: EmailMessage | SmsMessage): string {
  if (m.status === 'suppressed') return 'The address bounced or complained before: not sent';
  if (m.status === 'opted_out') return 'The phone answered STOP: not sent';
  const code = 'providerCode' in m && m.providerCode ? `carrier code ${m.providerCode}` : '';
  const parts = [m.lastError ?? '', code].filter(Boolean);
  if (m.status === 'queued' && m.nextAttemptAt) parts.push(`next try ${new Date(m.nextAttemptAt).toLocaleString()}`);
  return parts.join(' · ');
}

/** The state as a badge (`data-state` for tests and styling). */
export function MessageStateBadge({ message, testId }: { message: EmailMessage | SmsMessage; testId?: string }) {
  return (
    <span className={`bo-status bo-status-${message.status}`} data-state={message.status} data-testid={testId}>
      {MESSAGE_STATE_TEXT[message.status]}
    </span>
  );
}

/**
 * The latest e-mail and text sent about `subjectRef` (`invoice:<id>`, `pay_request:<id>`, `order:<id>`), each with its
 * state and reason; nothing while none was sent, or when the signed-in person may not read messages.
 */
export function LatestMessage({ subjectRef }: { subjectRef: string }) {
  const latest = useBackOfficeData('latest-message', [subjectRef], (api) => api.latestMessages(subjectRef), {
    // While a message is on its way its state is read again every 2 s, until it settles (sent, bounced, …).
    refetchInterval: (data) => (data && (inFlight(data.email, 'email') || inFlight(data.sms, 'sms')) ? 2000 : false),
  });
  const { email, sms } = latest.data ?? { email: null, sms: null };
  if (!email && !sms) return null;
  return (
    <span className="bo-latest-message" data-testid="latest-message">
      {([email, sms] as const).map((m, i) =>
        m ? (
          <span key={i} className="bo-hint" data-channel={i === 0 ? 'email' : 'sms'}>
            {i === 0 ? 'E-mail' : 'Text'} to {m.to}: <MessageStateBadge message={m} testId="latest-message-state" />
            {messageReason(m) ? <span className="muted"> {messageReason(m)}</span> : null}{' '}
          </span>
        ) : null,
      )}
    </span>
  );
}

/**
 * Back office → Messages (docs/decisions/0095-messages-view-and-demo-outbox.md): the store's e-mails and texts, newest
 * first, each with its recipient, kind, delivery state and reason, attempts and next attempt, filtered by state; the
 * addresses that bounced (a manager lifts one) and the phones that opted out; and, in demo mode only, the Demo outbox —
 * what the local mail server and SMS provider received, opened in place (an e-mail's HTML in a sandboxed frame that runs
 * no script and loads nothing). Lists are held by TanStack Query (common/cursor-list.tsx, common/back-office-query.ts).
 */
import { useId, useState, type KeyboardEvent } from 'react';
import type { BackOfficeApi, DemoOutboxEntry, EmailMessage, EmailSuppression, Page, SmsMessage, SmsOptOut } from '../common/back-office-api.ts';
import { LoadError, useApi } from '../common/back-office-kit.tsx';
import { useBackOfficeActions, useBackOfficeData } from '../common/back-office-query.ts';
import { CursorListBody, useCursorList } from '../common/cursor-list.tsx';
import { DataTable, type Column } from '../ui/data-table.tsx';
import { MESSAGE_STATE_TEXT, MessageStateBadge, messageReason } from './message-state.tsx';

type Tab = 'email' | 'sms' | 'blocked' | 'demo';

const EMAIL_STATES: EmailMessage['status'][] = ['queued', 'sending', 'sent', 'bounced', 'complained', 'suppressed', 'failed'];
const SMS_STATES: SmsMessage['status'][] = ['queued', 'sending', 'sent', 'delivered', 'failed', 'opted_out'];

/** What a message is about, worded: its kind, from `subjectRef` (`invoice:<id>` → Invoice). */
function aboutText(kind: string | null, subjectRef: string | null): string {
  const subject = subjectRef?.split(':')[0];
  if (subject === 'invoice') return 'Invoice';
  if (subject === 'pay_request') return 'Pay request';
  if (subject === 'order') return 'Receipt';
  return kind === 'receipt' ? 'Receipt' : kind === 'invoice' ? 'Invoice' : 'Notice';
}

const when = (iso: string | null) => (iso ? new Date(iso).toLocaleString() : '—');

const EMAIL_COLUMNS: Column<EmailMessage>[] = [
  { key: 'created', header: 'Created', cell: (m) => when(m.createdAt) },
  { key: 'to', header: 'To', cell: (m) => m.to },
  { key: 'kind', header: 'Kind', cell: (m) => aboutText(m.kind, m.subjectRef) },
  { key: 'subject', header: 'Subject', cell: (m) => m.subject },
  {
    key: 'state',
    header: 'State',
    cell: (m) => (
      <>
        <MessageStateBadge message={m} testId="message-state" />
        {messageReason(m) ? <span className="muted bo-hint"> {messageReason(m)}</span> : null}
      </>
    ),
  },
  { key: 'attempts', header: 'Attempts', numeric: true, cell: (m) => m.attempts },
  { key: 'next', header: 'Next attempt', cell: (m) => (m.status === 'queued' ? when(m.nextAttemptAt) : '—') },
];

const SMS_COLUMNS: Column<SmsMessage>[] = [
  { key: 'created', header: 'Created', cell: (m) => when(m.createdAt) },
  { key: 'to', header: 'To', cell: (m) => m.to },
  { key: 'kind', header: 'Kind', cell: (m) => aboutText(null, m.subjectRef) },
  { key: 'body', header: 'Text', cell: (m) => m.body },
  {
    key: 'state',
    header: 'State',
    cell: (m) => (
      <>
        <MessageStateBadge message={m} testId="message-state" />
        {messageReason(m) ? <span className="muted bo-hint"> {messageReason(m)}</span> : null}
      </>
    ),
  },
  { key: 'attempts', header: 'Attempts', numeric: true, cell: (m) => m.attempts },
  { key: 'next', header: 'Next attempt', cell: (m) => (m.status === 'queued' ? when(m.nextAttemptAt) : '—') },
];

export function MessagesView() {
  const id = useId();
  const [tab, setTab] = useState<Tab>('email');
  // Demo mode only: the server answers 404 when real providers send, and the tab is not shown.
  const demo = useBackOfficeData('demo-outbox', [], (api) => api.demoOutbox());
  const demoOn = demo.data !== undefined;
  const tabs: [Tab, string][] = [
    ['email', 'E-mail'],
    ['sms', 'Texts'],
    ['blocked', 'Suppressed & opted out'],
    ...(demoOn ? ([['demo', 'Demo outbox']] as [Tab, string][]) : []),
  ];
  // Arrow keys move between the tabs (WAI-ARIA tabs pattern); each tab is also a plain button for touch.
  const onKey = (event: KeyboardEvent<HTMLDivElement>) => {
    if (event.key !== 'ArrowRight' && event.key !== 'ArrowLeft') return;
    const at = tabs.findIndex(([k]) => k === tab);
    const next = tabs[(at + (event.key === 'ArrowRight' ? 1 : tabs.length - 1)) % tabs.length]![0];
    setTab(next);
    document.getElementById(`${id}-tab-${next}`)?.focus();
  };
  return (
    <section className="bo-section" aria-labelledby={`${id}-title`} data-testid="messages-view">
      <h2 id={`${id}-title`}>Messages</h2>
      <div className="bo-actions" role="tablist" aria-label="Messages" onKeyDown={onKey}>
        {tabs.map(([key, label]) => (
          <button
            key={key}
            id={`${id}-tab-${key}`}
            type="button"
            role="tab"
            aria-selected={tab === key}
            aria-controls={`${id}-panel`}
            tabIndex={tab === key ? 0 : -1}
            className={tab === key ? 'button button-primary' : 'button'}
            onClick={() => setTab(key)}
            data-testid={`messages-tab-${key}`}
          >
            {label}
          </button>
        ))}
      </div>
      <div id={`${id}-panel`} role="tabpanel" aria-labelledby={`${id}-tab-${tab}`}>
        {tab === 'email' ? <OutboxList of={EMAIL_LIST} /> : null}
        {tab === 'sms' ? <OutboxList of={SMS_LIST} /> : null}
        {tab === 'blocked' ? <BlockedLists /> : null}
        {tab === 'demo' ? <DemoOutbox /> : null}
      </div>
    </section>
  );
}

/** The state filter of a list: every state, or one. */
function StateFilter({ states, value, onChange }: { states: string[]; value: string; onChange: (v: string) => void }) {
  const id = useId();
  return (
    <>
      <label className="visually-hidden" htmlFor={id}>
        State
      </label>
      <select id={id} className="bo-input" value={value} onChange={(e) => onChange(e.target.value)} data-testid="messages-state-filter">
        <option value="">Every state</option>
        {states.map((s) => (
          <option key={s} value={s}>
            {MESSAGE_STATE_TEXT[s as EmailMessage['status']]}
          </option>
        ))}
      </select>
    </>
  );
}

/** What tells the e-mail list and the texts list apart. */
interface OutboxListOf<M extends EmailMessage | SmsMessage> {
  /** The list's name in the query cache (`email-outbox`). */
  name: string;
  /** The heading ("E-mail"). */
  title: string;
  /** What the list holds, capitalised ("E-mails"): its caption, its errors, "Loading e-mails…", "Show more e-mails". */
  what: string;
  /** One of them ("e-mail"), for "No e-mail bounced.". */
  one: string;
  /** Shown while nothing was sent yet. */
  emptyText: string;
  states: M['status'][];
  columns: Column<M>[];
  /** One page of the outbox, `status` filtering it when not empty. */
  fetchPage: (api: BackOfficeApi, query: { status: string; cursor?: string }) => Promise<Page<M>>;
}

const EMAIL_LIST: OutboxListOf<EmailMessage> = {
  name: 'email-outbox',
  title: 'E-mail',
  what: 'E-mails',
  one: 'e-mail',
  emptyText: 'No e-mail sent yet: receipts, invoices and reminders appear here.',
  states: EMAIL_STATES,
  columns: EMAIL_COLUMNS,
  fetchPage: (api, query) => api.listEmailOutbox(query),
};

const SMS_LIST: OutboxListOf<SmsMessage> = {
  name: 'sms-outbox',
  title: 'Texts',
  what: 'Texts',
  one: 'text',
  emptyText: 'No text sent yet: pay requests, invoices and receipts by SMS appear here.',
  states: SMS_STATES,
  columns: SMS_COLUMNS,
  fetchPage: (api, query) => api.listSmsOutbox(query),
};

/** One outbox, newest first, filtered by state, with Refresh and "Show more". */
function OutboxList<M extends EmailMessage | SmsMessage>({ of }: { of: OutboxListOf<M> }) {
  const [status, setStatus] = useState('');
  const api = useApi();
  const list = useCursorList<M, Page<M>>(of.name, [status], (cursor) => of.fetchPage(api, { status, ...(cursor ? { cursor } : {}) }));
  const plural = of.what.toLowerCase();
  return (
    <>
      <div className="bo-toolbar">
        <h3>{of.title}</h3>
        <StateFilter states={of.states} value={status} onChange={setStatus} />
        <button type="button" className="button" onClick={() => void list.refresh()}>
          Refresh
        </button>
      </div>
      <CursorListBody list={list} what={of.what} loadingText={`Loading ${plural}…`} moreLabel={`Show more ${plural}`}>
        {(rows) => (
          <DataTable
            caption={of.what}
            captionHidden
            columns={of.columns}
            rows={rows}
            rowKey={(m) => m.id}
            rowAttributes={(m) => ({ 'data-testid': 'message-row', 'data-message-id': m.id, 'data-state': m.status })}
            emptyText={status ? `No ${of.one} ${MESSAGE_STATE_TEXT[status as M['status']].toLowerCase()}.` : of.emptyText}
            emptyTestId="messages-empty"
          />
        )}
      </CursorListBody>
    </>
  );
}

const OPT_OUT_COLUMNS: Column<SmsOptOut & { id: string }>[] = [
  { key: 'phone', header: 'Phone', cell: (o) => o.phone },
  { key: 'keyword', header: 'Answered', cell: (o) => o.keyword },
  { key: 'at', header: 'Opted out', cell: (o) => when(o.optedOutAt) },
];
const SUPPRESSION_COLUMNS: Column<EmailSuppression>[] = [
  { key: 'address', header: 'Address' },
  { key: 'reason', header: 'Bounce' },
  { key: 'at', header: 'Since' },
  { key: 'actions', header: 'Actions', hideHeader: true },
];

function BlockedLists() {
  const suppressions = useBackOfficeData('email-suppressions', [], (api) => api.listEmailSuppressions());
  const optOuts = useBackOfficeData('sms-opt-outs', [], (api) => api.listSmsOptOuts());
  return (
    <>
      <h3>Suppressed addresses</h3>
      <p className="muted">Mail to these addresses was refused for good: nothing more is sent to them until you send to them again.</p>
      {suppressions.error ? <LoadError error={suppressions.error} what="Suppressed addresses" /> : null}
      {suppressions.data ? (
        <DataTable
          caption="Suppressed addresses"
          captionHidden
          columns={SUPPRESSION_COLUMNS}
          rows={suppressions.data.data}
          rowKey={(s) => s.address}
          renderRow={(s) => <SuppressionRow suppression={s} />}
          emptyText="No address has bounced."
          emptyTestId="suppressions-empty"
        />
      ) : null}
      <h3>Opted-out numbers</h3>
      <p className="muted">These phones answered STOP: no text is sent to them. Only the customer can undo it, by answering START.</p>
      {optOuts.error ? <LoadError error={optOuts.error} what="Opted-out numbers" /> : null}
      {optOuts.data ? (
        <DataTable
          caption="Opted-out numbers"
          captionHidden
          columns={OPT_OUT_COLUMNS}
          rows={optOuts.data.data.map((o) => ({ ...o, id: o.phone }))}
          rowKey={(o) => o.phone}
          rowAttributes={() => ({ 'data-testid': 'opt-out-row' })}
          emptyText="No phone has opted out."
          emptyTestId="opt-outs-empty"
        />
      ) : null}
    </>
  );
}

function SuppressionRow({ suppression: s }: { suppression: EmailSuppression }) {
  const actions = useBackOfficeActions(['email-suppressions']);
  const [confirming, setConfirming] = useState(false);
  return (
    <tr data-testid="suppression-row" data-address={s.address}>
      <td>{s.address}</td>
      <td>{s.reason}</td>
      <td>{when(s.createdAt)}</td>
      <td className="bo-actions">
        {!confirming ? (
          <button type="button" className="button button-ghost" onClick={() => setConfirming(true)} data-testid="suppression-lift">
            Send again…
          </button>
        ) : (
          <>
            <button
              type="button"
              className="button bo-danger"
              disabled={actions.pending}
              onClick={() => void actions.run((api) => api.liftEmailSuppression(s.address))}
              data-testid="suppression-confirm-lift"
            >
              {actions.pending ? 'Lifting…' : `Send to ${s.address} again`}
            </button>
            <button type="button" className="button button-ghost" onClick={() => setConfirming(false)}>
              Keep suppressed
            </button>
          </>
        )}
        {actions.error ? (
          <span role="alert" className="bo-hint">
            {actions.error}
          </span>
        ) : null}
      </td>
    </tr>
  );
}

/**
 * The HTML of an e-mail as a frame's document: a Content-Security-Policy that loads nothing from outside and runs no
 * script comes first, and the frame itself is sandboxed (no scripts, no same origin, no forms, no popups).
 */
function sandboxedDocument(html: string): string {
  return `<!doctype html><meta http-equiv="Content-Security-Policy" content="default-src 'none'; img-src data:; style-src 'unsafe-inline'">${html}`;
}

const DEMO_COLUMNS: Column<DemoOutboxEntry>[] = [
  { key: 'received', header: 'Received' },
  { key: 'channel', header: 'Channel' },
  { key: 'to', header: 'To' },
  { key: 'what', header: 'Subject or text' },
  { key: 'state', header: 'State' },
];

function DemoOutbox() {
  // Read afresh each time the tab is opened (the read above only tells whether the server runs in demo mode).
  const list = useBackOfficeData('demo-outbox-list', [], (api) => api.demoOutbox());
  const entries = list.data?.data;
  const [open, setOpen] = useState<DemoOutboxEntry | null>(null);
  return (
    <>
      <div className="bo-toolbar">
        <h3>Demo outbox</h3>
        <button type="button" className="button" onClick={() => void list.refresh()}>
          Refresh
        </button>
      </div>
      <p className="muted">Demo mode: nothing leaves this machine. This is what the local mail server and SMS provider received from this store.</p>
      {list.error ? <LoadError error={list.error} what="The demo outbox" /> : null}
      {!entries && !list.error ? <p className="muted">Loading…</p> : null}
      {entries ? (
        <DataTable
          caption="Demo outbox"
          captionHidden
          columns={DEMO_COLUMNS}
          rows={entries}
          rowKey={(e) => `${e.channel}:${e.id}`}
          renderRow={(e) => (
            <tr key={`${e.channel}:${e.id}`} data-testid="demo-outbox-row" data-channel={e.channel} data-outbox-id={e.outboxId}>
              <td>{when(e.receivedAt)}</td>
              <td>{e.channel === 'email' ? 'E-mail' : 'Text'}</td>
              <td>{e.to}</td>
              <td>
                <button
                  type="button"
                  className="button button-ghost"
                  aria-pressed={open?.id === e.id && open.channel === e.channel}
                  onClick={() => setOpen(e)}
                  data-testid="demo-outbox-open"
                >
                  {e.subject ?? e.preview}
                </button>
                {e.attachments ? <span className="muted bo-hint"> {e.attachments} attachment(s)</span> : null}
              </td>
              <td>{MESSAGE_STATE_TEXT[e.status as EmailMessage['status']] ?? e.status}</td>
            </tr>
          )}
          emptyText="Nothing received yet: send a receipt, an invoice or a pay request and it appears here."
          emptyTestId="demo-outbox-empty"
        />
      ) : null}
      {open ? (
        open.channel === 'email' ? (
          <DemoMailView id={open.id} onClose={() => setOpen(null)} />
        ) : (
          <DemoTextView id={open.id} onClose={() => setOpen(null)} />
        )
      ) : null}
    </>
  );
}

function DemoMailView({ id, onClose }: { id: string; onClose: () => void }) {
  const mail = useBackOfficeData('demo-mail', [id], (api) => api.demoMail(id));
  const m = mail.data;
  return (
    <article className="bo-panel" aria-label="E-mail" data-testid="demo-mail">
      {mail.error ? <LoadError error={mail.error} what="The e-mail" /> : null}
      {m ? (
        <>
          <h3 data-testid="demo-mail-subject">{m.subject}</h3>
          <p>
            From {m.from} to {m.to}, {when(m.receivedAt)}
          </p>
          <details>
            <summary>Headers</summary>
            <dl className="bo-headers" data-testid="demo-mail-headers">
              {m.headers.map((h, i) => (
                <div key={i}>
                  <dt>{h.name}</dt>
                  <dd>{h.value}</dd>
                </div>
              ))}
            </dl>
          </details>
          {m.html !== null ? (
            <iframe
              title={`HTML of ${m.subject}`}
              sandbox=""
              referrerPolicy="no-referrer"
              srcDoc={sandboxedDocument(m.html)}
              className="bo-mail-frame"
              style={{ width: '100%', minHeight: '24rem', border: '1px solid currentColor', background: 'white' }}
              data-testid="demo-mail-html"
            />
          ) : null}
          <details open={m.html === null}>
            <summary>Text</summary>
            <pre className="bo-mail-text" style={{ whiteSpace: 'pre-wrap' }} data-testid="demo-mail-text">
              {m.text}
            </pre>
          </details>
          <h4>Attachments</h4>
          {m.attachments.length ? (
            <ul data-testid="demo-mail-attachments">
              {m.attachments.map((a, i) => (
                <li key={i}>
                  {a.filename || '(no name)'} — {a.contentType}, {Math.ceil(a.bytes / 1024)} KB
                </li>
              ))}
            </ul>
          ) : (
            <p className="muted">None</p>
          )}
        </>
      ) : null}
      <button type="button" className="button" onClick={onClose}>
        Close
      </button>
    </article>
  );
}

function DemoTextView({ id, onClose }: { id: string; onClose: () => void }) {
  const text = useBackOfficeData('demo-text', [id], (api) => api.demoText(id));
  const t = text.data;
  return (
    <article className="bo-panel" aria-label="Text" data-testid="demo-text">
      {text.error ? <LoadError error={text.error} what="The text" /> : null}
      {t ? (
        <>
          <p>
            From {t.from} to {t.to}, {when(t.receivedAt)}
          </p>
          <p className="bo-sms-bubble" data-testid="demo-text-body">
            {t.body}
          </p>
        </>
      ) : null}
      <button type="button" className="button" onClick={onClose}>
        Close
      </button>
    </article>
  );
}

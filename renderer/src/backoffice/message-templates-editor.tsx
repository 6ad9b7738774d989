/**
 * Back office → Settings → Message templates: the text of each e-mail and SMS the store sends (receipts, invoices and
 * reminders, pay requests, the app-suspended notice), per language, with a live preview the server renders from
 * sample data (`POST /api/pos/message-template-previews`: the subject, the body, an SMS's parts). Saving (`PUT`) or
 * resetting (`DELETE /api/pos/message-templates/{kind}`) is the owner's; the server's 400s name `subject` or `body`
 * and show under the field. docs/decisions/0094-message-templates-per-store-and-language.md.
 */
import { useEffect, useId, useMemo, useState } from 'react';
import {
  describeSmsSegments,
  STORE_LANGUAGE_NAMES,
  STORE_LANGUAGES,
  type MessageKind,
  type MessageTemplatePreview,
  type MessageTemplateView,
  type StoreLanguage,
} from '../../../core/index.ts';
import { ApiError } from '../common/back-office-api.ts';
import { Field, LoadError, useApi } from '../common/back-office-kit.tsx';
import { useBackOfficeActions, useBackOfficeData } from '../common/back-office-query.ts';
import { useDebounced } from '../common/cursor-list.tsx';

/** How long typing pauses before the preview is asked for again (ms). */
const PREVIEW_DELAY_MS = 300;

/** The editor: a language and a kind of message, its template, the preview. `storeLanguage` is where it starts. */
export function MessageTemplatesEditor({ storeLanguage }: { storeLanguage: StoreLanguage }) {
  const [language, setLanguage] = useState<StoreLanguage>(storeLanguage);
  const [kind, setKind] = useState<MessageKind>('receipt_email');
  const id = useId();
  const list = useBackOfficeData('message-templates', [language], (api) => api.messageTemplates(language));
  const current = list.data?.items.find((t) => t.kind === kind);
  return (
    <div className="bo-panel" data-testid="message-templates">
      <div className="bo-panel-header">
        <h2>Message templates</h2>
      </div>
      <p className="muted">
        The e-mails and texts the store sends. Write {'{{name}}'} for a placeholder; {'{{#name}}…{{/name}}'} shows its content only when that value is
        not empty.
      </p>
      <div className="bo-row">
        <Field id={`${id}-language`} label="Language" hint="The store's language is set above">
          {(props) => (
            <select
              {...props}
              className="bo-input"
              value={language}
              onChange={(e) => setLanguage(e.target.value as StoreLanguage)}
              data-testid="templates-language"
            >
              {STORE_LANGUAGES.map((l) => (
                <option key={l} value={l}>
                  {STORE_LANGUAGE_NAMES[l]}
                  {l === storeLanguage ? ' (store)' : ''}
                </option>
              ))}
            </select>
          )}
        </Field>
        <Field id={`${id}-kind`} label="Message">
          {(props) => (
            <select
              {...props}
              className="bo-input"
              value={kind}
              onChange={(e) => setKind(e.target.value as MessageKind)}
              data-testid="templates-kind"
            >
              {(list.data?.items ?? []).map((t) => (
                <option key={t.kind} value={t.kind}>
                  {t.title}
                  {t.overridden ? ' (edited)' : ''}
                </option>
              ))}
            </select>
          )}
        </Field>
      </div>
      {list.error ? <LoadError error={list.error} what="Message templates" /> : null}
      {!list.data && !list.error ? <p className="muted">Loading templates…</p> : null}
      {current ? <TemplateForm key={`${current.kind}|${current.language}`} template={current} /> : null}
    </div>
  );
}

/** One template being edited, with its preview (keyed by kind and language: another one starts afresh). */
function TemplateForm({ template }: { template: MessageTemplateView }) {
  const id = useId();
  const api = useApi();
  const actions = useBackOfficeActions(['message-templates']);
  const [subject, setSubject] = useState(template.subject ?? '');
  const [body, setBody] = useState(template.body);
  const [errors, setErrors] = useState<Record<string, string>>({});
  const [preview, setPreview] = useState<MessageTemplatePreview | undefined>();
  const [saved, setSaved] = useState(false);
  const isEmail = template.channel === 'email';
  const { kind, language } = template;

  // Asked for once typing in either field pauses; an answer overtaken by newer settled text is dropped.
  const typed = useDebounced(
    useMemo(() => ({ subject, body }), [subject, body]),
    PREVIEW_DELAY_MS,
  );
  useEffect(() => {
    let stale = false;
    api.previewMessageTemplate({ kind, language, body: typed.body, ...(isEmail ? { subject: typed.subject } : {}) }).then(
      (answer) => {
        if (stale) return;
        setPreview(answer);
        setErrors({});
      },
      (err: unknown) => {
        if (stale) return;
        setPreview(undefined);
        setErrors(err instanceof ApiError ? err.fieldErrors() : {});
      },
    );
    return () => {
      stale = true;
    };
  }, [api, kind, language, isEmail, typed]);

  const save = async () => {
    setSaved(false);
    const answer = await actions.run(
      (a) => a.saveMessageTemplate(kind, { language, body, ...(isEmail ? { subject } : {}) }),
      (err) => {
        if (err instanceof ApiError && err.problem.errors?.length) {
          setErrors(err.fieldErrors());
          return undefined;
        }
        return err instanceof Error ? err.message : String(err);
      },
    );
    if (answer) setSaved(true);
  };
  const reset = async () => {
    setSaved(false);
    const answer = await actions.run((a) => a.resetMessageTemplate(kind, language));
    if (!answer) return;
    setSubject(answer.subject ?? '');
    setBody(answer.body);
  };

  return (
    <form
      className="bo-form"
      noValidate
      onSubmit={(event) => {
        event.preventDefault();
        void save();
      }}
    >
      {actions.error ? (
        <p className="form-error" role="alert">
          {actions.error}
        </p>
      ) : null}
      <p className="muted" data-testid="template-placeholders">
        Placeholders:{' '}
        {template.placeholders.map((p, i) => (
          <span key={p.name} title={p.description}>
            {i > 0 ? ', ' : ''}
            <code>{`{{${p.name}}}`}</code>
            {p.required ? ' (required)' : ''}
          </span>
        ))}
      </p>
      {isEmail ? (
        <Field id={`${id}-subject`} label="Subject" error={errors.subject}>
          {(props) => (
            <input {...props} className="bo-input" value={subject} onChange={(e) => setSubject(e.target.value)} data-testid="template-subject" />
          )}
        </Field>
      ) : null}
      <Field id={`${id}-body`} label={isEmail ? 'Body' : 'Text'} error={errors.body}>
        {(props) => (
          <textarea
            {...props}
            className="bo-input"
            rows={isEmail ? 10 : 4}
            value={body}
            onChange={(e) => setBody(e.target.value)}
            data-testid="template-body"
          />
        )}
      </Field>
      <section aria-label="Preview" aria-live="polite" data-testid="template-preview">
        <h3>Preview</h3>
        {preview ? (
          <>
            {preview.subject !== null ? (
              <p>
                <strong data-testid="template-preview-subject">{preview.subject}</strong>
              </p>
            ) : null}
            <pre className="bo-input" style={{ whiteSpace: 'pre-wrap' }} data-testid="template-preview-body">
              {preview.body}
            </pre>
            {preview.sms ? (
              <p className="muted" data-testid="template-preview-segments">
                {describeSmsSegments(preview.sms)} · {preview.sms.units} {preview.sms.encoding === 'GSM-7' ? 'characters' : 'units'}
              </p>
            ) : null}
          </>
        ) : (
          <p className="muted">{Object.keys(errors).length > 0 ? 'Fix the template to see the preview.' : 'Rendering…'}</p>
        )}
      </section>
      <div className="bo-actions">
        {saved ? (
          <span className="bo-saved" role="status" data-testid="template-saved">
            Saved
          </span>
        ) : null}
        {template.overridden ? (
          <button type="button" className="button" disabled={actions.pending} onClick={() => void reset()} data-testid="template-reset">
            Reset to default
          </button>
        ) : null}
        <button type="submit" className="button button-primary" disabled={actions.pending} data-testid="template-save">
          {actions.pending ? 'Saving…' : 'Save template'}
        </button>
      </div>
    </form>
  );
}

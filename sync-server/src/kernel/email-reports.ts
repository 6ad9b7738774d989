/**
 * Recording a bounce or complaint received by mail (docs/decisions/0096-bounces-and-complaints-by-mail.md): the
 * report is read (platform/messaging/bounces.ts `parseEmailReport`), the message it is about found by its verified VERP
 * address, and its effect written under the store's write lock with an audit entry (actor `system`).
 */
import type { AppContext } from '../platform/context.ts';
import { applyEmailReport, emailIdOfVerp, parseEmailReport, reportedEmail, type EmailReportOutcome } from '../platform/messaging/bounces.ts';
import { mutation } from './mutation.ts';

/** What became of one report received ({@link recordEmailReport}). */
export type RecordedEmailReport =
  | { recorded: true; emailId: string; merchantId: string; outcome: EmailReportOutcome }
  | { recorded: false; why: 'not a report' | 'no verified sender' | 'unknown message' };

/**
 * Reads the report `raw` received for the SMTP recipients `envelopeTo` and records it against its message: the first
 * address of the report (its envelope recipient, Original-Mail-From, the original's Return-Path) that is a VERP sender
 * of `bounce.domain` whose MAC verifies under `bounce.key` names the message. A message that is not a report, one
 * whose addresses do not verify (forged, or another sender's) and one naming no message of ours change nothing.
 * Audited as `email.bounced`, `email.complained` or `email.report_recorded` (entity `email`, its id), with what the
 * report said.
 */
export async function recordEmailReport(
  ctx: Pick<AppContext, 'db' | 'clock' | 'feed'>,
  raw: Buffer | string,
  envelopeTo: readonly string[],
  bounce: { domain: string; key: string },
): Promise<RecordedEmailReport> {
  const report = await parseEmailReport(raw, envelopeTo);
  if (!report) return { recorded: false, why: 'not a report' };
  const emailId = report.candidates.map((a) => emailIdOfVerp(bounce.key, bounce.domain, a)).find((id) => id !== null);
  if (!emailId) return { recorded: false, why: 'no verified sender' };
  const message = await reportedEmail(ctx.db, emailId);
  if (!message) return { recorded: false, why: 'unknown message' };
  const outcome = await mutation(ctx, { merchantId: message.merchantId, actor: 'system' }, async (m) => {
    const result = await applyEmailReport(m.tx, message, report, m.now);
    const said =
      report.type === 'delivery-status'
        ? { report: report.type, recipients: report.recipients }
        : { report: report.type, feedbackType: report.feedbackType, originalRcptTo: report.originalRcptTo, userAgent: report.userAgent };
    await m.audit({
      action: result.effect === 'recorded' ? 'email.report_recorded' : `email.${result.effect}`,
      entityType: 'email',
      entityId: message.id,
      data: { to: message.toAddress, reason: result.reason, suppressed: result.suppressed, ...said },
    });
    return result;
  });
  return { recorded: true, emailId, merchantId: message.merchantId, outcome };
}

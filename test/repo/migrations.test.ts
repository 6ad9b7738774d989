/**
 * Each module keeps its migrations (`modules/<name>/migrations`), the kernel its own (`kernel/migrations`), the
 * platform its tables' and those that touch several modules (`platform/db/migrations`); the runner gathers them into
 * one order by number (docs/architecture.md). The names are what `schema_migrations` records, so the gathered list
 * must stay exactly the one a database already has: same names, same order, numbers strictly increasing. A new
 * migration is added at the end of `MIGRATIONS`.
 */
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, relative, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { migrationFiles } from '../../sync-server/src/platform/db/migrate.ts';

const SRC = fileURLToPath(new URL('../../sync-server/src', import.meta.url));

/** Every migration the server has ever applied, in the order it applies them. */
const MIGRATIONS = [
  '0001_init.sql',
  '0005_event_outbox.sql',
  '0006_email_outbox.sql',
  '0010_catalog_inventory.sql',
  '0011_webhooks.sql',
  '0012_stock_levels.sql',
  '0020_orders_api.sql',
  '0021_customers.sql',
  '0030_invoices_pay_requests.sql',
  '0031_pay_request_orders.sql',
  '0032_declined_payments.sql',
  '0040_merchant_time_zone.sql',
  '0050_image_credits.sql',
  '0060_merchant_settings.sql',
  '0070_idempotency_committed.sql',
  '0081_receipt_sequences.sql',
  '0083_rate_limits.sql',
  '0090_register_enrollment.sql',
  '0091_stream_tickets.sql',
  '0092_staff_pins.sql',
  '0095_sealed_secrets.sql',
  '0100_tamper_evidence.sql',
  '0105_tip_limits.sql',
  '0106_wallet_tenders.sql',
  '0107_webhook_attempt_outcome.sql',
  '0110_shifts_closeout.sql',
  '0115_payment_rails.sql',
  '0116_settlements.sql',
  '0120_offline_card_payments.sql',
  '0135_manager_approvals.sql',
  '0140_invoice_refunds_declines.sql',
  '0141_offline_forward_window_retry.sql',
  '0142_order_payment_routing.sql',
  '0150_catalog_import_scale.sql',
  '0155_sell_past_zero.sql',
  '0160_register_returns.sql',
  '0170_sanctions_screening.sql',
  '0171_id_verifications.sql',
  '0175_financial_services.sql',
  '0180_staff_identities.sql',
  '0185_apps.sql',
  '0195_order_balance_due.sql',
  '0200_financial_services_settings_shift_images.sql',
  '0210_register_customers.sql',
  '0215_app_installations.sql',
  '0220_app_billing.sql',
  '0225_catalog_key_indexes_no_pending_list.sql',
  '0235_bill_payment_screening.sql',
  '0236_developer_program_trust.sql',
  '0239_offline_staff_sign_in.sql',
  '0241_bill_payment_name_screening.sql',
  '0250_email_delivery.sql',
  '0255_sms_delivery.sql',
  '0260_sms_kinds_quiet_hours.sql',
  '0265_deployment_secrets.sql',
  '0270_message_templates.sql',
  '0275_message_subjects.sql',
  '0280_floor_plans.sql',
  '0285_open_checks.sql',
  '0290_email_reports.sql',
  '0295_service_style.sql',
  '0300_kitchen.sql',
  '0305_check_refund_flags_and_service_charges.sql',
  '0310_appointments.sql',
];

describe('migrations', () => {
  it('are gathered from the platform, the kernel and the modules into the one order databases already have', async () => {
    const files = await migrationFiles();
    expect(files.map((f) => f.name)).toEqual(MIGRATIONS);
    const numbers = files.map((f) => Number(f.name.slice(0, 4)));
    for (let i = 1; i < numbers.length; i++) expect(numbers[i]!, files[i]!.name).toBeGreaterThan(numbers[i - 1]!);
    // Each file sits in one of the three kinds of place.
    const places = new Set(files.map((f) => relative(SRC, f.path).split(sep).slice(0, -1).join('/')));
    for (const place of places) expect(place).toMatch(/^(platform\/db|kernel|modules\/[a-z-]+)\/migrations$/);
    expect(places.size).toBeGreaterThan(3);
  });

  it('refuse two files with one number, even in different folders', async () => {
    const root = await mkdtemp(join(tmpdir(), 'register-migrations-'));
    try {
      await mkdir(join(root, 'platform/db/migrations'), { recursive: true });
      await mkdir(join(root, 'modules/a/migrations'), { recursive: true });
      await mkdir(join(root, 'modules/b'), { recursive: true });
      await writeFile(join(root, 'platform/db/migrations/0001_init.sql'), 'SELECT 1;');
      await writeFile(join(root, 'modules/a/migrations/0002_a.sql'), 'SELECT 1;');
      expect((await migrationFiles(root)).map((f) => f.name)).toEqual(['0001_init.sql', '0002_a.sql']);
      await writeFile(join(root, 'modules/a/migrations/0001_other.sql'), 'SELECT 1;');
      await expect(migrationFiles(root)).rejects.toThrow(/two migrations are numbered 0001/);
    } finally {
      await rm(root, { recursive: true, force: true });
    }
  });
});

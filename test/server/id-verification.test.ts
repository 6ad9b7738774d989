/**
 * ID verification over HTTP: the AAMVA samples typed by a keyboard-wedge scanner, and photos of the back of
 * the card made from them with bwip-js (PDF417) and decoded by the server with zxing-wasm; expiry and the service's
 * minimum age (store setting, 18 by default) checked on the server's clock; the issuer (IIN) checked against the
 * AAMVA table and the address's state; the document number stored masked only;
 * foreign, truncated and malformed payloads a clear 400. On PGlite and PostgreSQL.
 */
import bwipjs from 'bwip-js/node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { IdVerification } from '../../core/screening.ts';
import { databaseTargets } from '../support/databases.ts';
import { aamvaFixture, buildAamvaPayload } from '../support/aamva.ts';
import { startTestServer, type TestServer } from '../support/server.ts';

/** A PNG "photo" of the back of the card: the PDF417 of `payload` on a light grey card, optionally turned a quarter. */
async function photoOfBack(payload: string, rotate: 'N' | 'R' = 'N'): Promise<string> {
  const png = await bwipjs.toBuffer({ bcid: 'pdf417', text: payload, binarytext: true, scale: 2, padding: 24, backgroundcolor: 'E8E8E0', rotate });
  return png.toString('base64');
}

describe.each(databaseTargets())('ID verification on $name', (target) => {
  let server: TestServer;
  let owner: string;
  // The server's day: 2025-06-01 (VA-U21's holder, born 2007-01-19, is 18; the CDS example expired 2024-12-10).
  const now = new Date('2025-06-01T15:00:00Z');

  const call = (method: 'GET' | 'POST' | 'PATCH', url: string, payload?: unknown, token = owner) =>
    server.app.inject({
      method,
      url,
      headers: { authorization: `Bearer ${token}`, ...(payload === undefined ? {} : { 'content-type': 'application/json' }) },
      ...(payload === undefined ? {} : { payload: JSON.stringify(payload) }),
    });
  const verify = async (body: Record<string, unknown>): Promise<IdVerification> => {
    const res = await call('POST', '/api/pos/id-verifications', body);
    expect(res.statusCode, res.body).toBe(201);
    return res.json<IdVerification>();
  };

  beforeAll(async () => {
    server = await startTestServer({ target, staticDir: null, clock: () => now });
    owner = server.credentials.staffToken;
  });
  afterAll(async () => {
    await server?.close();
  });

  it('a scanner-typed licence of an adult passes for check cashing: photo-free summary, number masked', async () => {
    const v = await verify({ service: 'check_cashing', payload: aamvaFixture('VA-21.txt') });
    expect(v).toMatchObject({
      ok: true,
      problems: [],
      minimumAge: 18,
      source: 'scanner',
      holder: {
        firstName: 'JAMES',
        lastName: 'SARKO',
        dateOfBirth: '1950-03-23',
        age: 75,
        expiry: '2031-03-23',
        jurisdiction: 'VA',
        documentType: 'ID',
        documentNumberMasked: '*****0487',
      },
      issuer: { iin: '636000', aamvaVersion: 10 },
    });
    const stored = await server.db.query('SELECT * FROM id_verifications WHERE id = $1', [v.id]);
    expect(JSON.stringify(stored.rows)).not.toContain('T16700487');
    const audit = await server.db.query<{ data: Record<string, unknown> }>(
      "SELECT data FROM audit_log WHERE action = 'id_verification.checked' AND entity_id = $1",
      [v.id],
    );
    expect(audit.rows[0]?.data).toMatchObject({ service: 'check_cashing', ok: true, documentNumberMasked: '*****0487' });
    expect(JSON.stringify(audit.rows)).not.toContain('T16700487');
  });

  it('an expired licence and an under-age holder are flagged with the problem, stored as not ok', async () => {
    const expired = await verify({ service: 'check_cashing', payload: aamvaFixture('aamva-cds-example-VA.txt') });
    expect(expired).toMatchObject({ ok: false, problems: ['expired'], holder: { lastName: 'SAMPLE', expiry: '2024-12-10' } });
    const patch = await call('PATCH', '/api/pos/id-verification-settings', { minimumAges: { check_cashing: 18, money_transfer: 21 } });
    expect(patch.statusCode, patch.body).toBe(200);
    const u21 = aamvaFixture('VA-U21.txt');
    expect(await verify({ service: 'check_cashing', payload: u21 })).toMatchObject({ ok: true, holder: { age: 18 } });
    expect(await verify({ service: 'money_transfer', payload: u21 })).toMatchObject({ ok: false, problems: ['under_minimum_age'], minimumAge: 21 });
    const list = await call('GET', '/api/pos/id-verifications?ok=false&service=money_transfer');
    expect(list.statusCode, list.body).toBe(200);
    expect(list.json<{ data: IdVerification[] }>().data).toHaveLength(1);
  });

  it('the issuer is checked: an IIN outside the AAMVA table, or one whose jurisdiction is not the address state, is not ok', async () => {
    const va = aamvaFixture('VA-21.txt');
    const unknown = await verify({ service: 'check_cashing', payload: va.replace('ANSI 636000', 'ANSI 999999') });
    expect(unknown).toMatchObject({ ok: false, problems: ['unknown_issuer'], issuer: { iin: '999999' } });
    const maryland = await verify({ service: 'check_cashing', payload: va.replace('ANSI 636000', 'ANSI 636003') });
    expect(maryland).toMatchObject({
      ok: false,
      problems: ['issuer_state_mismatch'],
      holder: { jurisdiction: 'MD', address: { state: 'VA' } },
      issuer: { iin: '636003' },
    });
    expect(await verify({ service: 'check_cashing', payload: va })).toMatchObject({ ok: true, problems: [] });
    const audit = await server.db.query<{ data: Record<string, unknown> }>(
      "SELECT data FROM audit_log WHERE action = 'id_verification.checked' AND entity_id = $1",
      [maryland.id],
    );
    expect(audit.rows[0]?.data).toMatchObject({ ok: false, problems: ['issuer_state_mismatch'] });
  });

  it('older versions of the standard verify too (version 01, 03)', async () => {
    const v1 = await verify({
      service: 'bill_payment',
      payload: buildAamvaPayload(1, '636026', 'DL', [
        ['DAQ', 'D1234567'],
        ['DAA', 'PUBLIC,JOHN,Q'],
        ['DBB', '19700315'],
        ['DBA', '20300315'],
        ['DBC', 'M'],
      ]),
    });
    expect(v1).toMatchObject({
      ok: true,
      minimumAge: 18,
      holder: { lastName: 'PUBLIC', firstName: 'JOHN', age: 55, jurisdiction: 'AZ' },
      issuer: { aamvaVersion: 1 },
    });
    const v3 = await verify({
      service: 'bill_payment',
      payload: buildAamvaPayload(3, '636014', 'ID', [
        ['DCS', 'DOE'],
        ['DCT', 'JANE ANN'],
        ['DAQ', 'Y1234567'],
        ['DBB', '07041980'],
        ['DBA', '07042029'],
        ['DBC', '2'],
      ]),
    });
    expect(v3).toMatchObject({ ok: true, holder: { firstName: 'JANE', middleName: 'ANN', sex: 'F', jurisdiction: 'CA' } });
  });

  it('a photo of the back of the card is decoded (zxing-wasm), upright or turned', async () => {
    const v = await verify({ service: 'check_cashing', imageBase64: await photoOfBack(aamvaFixture('VA-21.txt')) });
    expect(v).toMatchObject({ ok: true, source: 'image', holder: { lastName: 'SARKO', documentNumberMasked: '*****0487' } });
    const turned = await verify({ service: 'check_cashing', imageBase64: await photoOfBack(aamvaFixture('aamva-cds-example-VA.txt'), 'R') });
    expect(turned).toMatchObject({ source: 'image', problems: ['expired'], holder: { firstName: 'MICHAEL' } });
  });

  it('a photo without a barcode, a foreign, truncated or malformed payload is a clear 400', async () => {
    const qr = (await bwipjs.toBuffer({ bcid: 'qrcode', text: 'https://example.com' })).toString('base64');
    const cases: [Record<string, unknown>, string, string][] = [
      [{ service: 'check_cashing', imageBase64: qr }, 'no_barcode_found', 'imageBase64'],
      [{ service: 'check_cashing', imageBase64: Buffer.from('not an image').toString('base64') }, 'no_barcode_found', 'imageBase64'],
      [{ service: 'check_cashing', payload: 'https://example.com/?q=1' }, 'invalid_id_barcode', 'payload'],
      [{ service: 'check_cashing', payload: aamvaFixture('VA-21.txt').slice(0, 90) }, 'invalid_id_barcode', 'payload'],
      [{ service: 'check_cashing', payload: aamvaFixture('VA-21.txt').replace('DBB03231950', 'DBB99999999') }, 'invalid_id_barcode', 'payload'],
      [{ service: 'check_cashing' }, 'validation_error', 'payload'],
      [{ service: 'check_cashing', payload: 'x', imageBase64: 'eA==' }, 'validation_error', 'payload'],
      [{ service: 'Check Cashing', payload: 'x' }, 'validation_error', 'service'],
    ];
    for (const [body, code, path] of cases) {
      const res = await call('POST', '/api/pos/id-verifications', body);
      expect(res.statusCode, `${JSON.stringify(body).slice(0, 80)} → ${res.body}`).toBe(400);
      expect(res.json()).toMatchObject({ code, errors: [expect.objectContaining({ path })] });
    }
    const truncated = await call('POST', '/api/pos/id-verifications', { service: 'check_cashing', payload: aamvaFixture('VA-21.txt').slice(0, 90) });
    expect(truncated.json<{ detail: string }>().detail).toMatch(/read only in part/);
  });

  it('the minimum ages are store settings the owner changes (audited)', async () => {
    const res = await call('GET', '/api/pos/id-verification-settings');
    expect(res.json()).toMatchObject({ defaultMinimumAge: 18 });
    expect((await call('PATCH', '/api/pos/id-verification-settings', { defaultMinimumAge: 200 })).statusCode).toBe(400);
    const audit = await server.db.query("SELECT 1 FROM audit_log WHERE action = 'id_verification_settings.updated'");
    expect(audit.rows.length).toBeGreaterThan(0);
  });
});

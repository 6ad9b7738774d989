/** Store settings as the settings API answers them (`GET` / `PATCH /api/pos/settings`, staff only). */
import { z } from 'zod';

/** `GET /api/pos/settings` and the answer of PATCH. Name and currency are shown, not changed there. */
export const storeSettingsSchema = z.strictObject({
  merchantId: z.string(),
  name: z.string(),
  currency: z.string().describe('ISO 4217 code of every amount (minor units).'),
  timeZone: z.string().describe('IANA time zone; reports count days in it.'),
  defaultCountry: z.string().describe('ISO 3166-1 alpha-2: the country of phone numbers typed without + and a country code.'),
});
export type StoreSettings = z.infer<typeof storeSettingsSchema>;

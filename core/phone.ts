import { parsePhoneNumberFromString } from 'libphonenumber-js/max';

/**
 * True when `value` is a valid phone number written exactly in E.164 (`+` country code and subscriber number, no
 * spaces), e.g. `+14155550123`. Validation by libphonenumber-js (ITU-T E.164 + per-country numbering plans).
 */
export function isValidE164(value: string): boolean {
  if (!/^\+[1-9]\d{6,14}$/.test(value)) return false;
  const parsed = parsePhoneNumberFromString(value);
  return parsed !== undefined && parsed.isValid() && parsed.number === value;
}

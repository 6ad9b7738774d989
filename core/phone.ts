import { isSupportedCountry, parsePhoneNumberFromString, type CountryCode } from 'libphonenumber-js/max';

/**
 * True when `value` is a valid phone number written exactly in E.164 (`+` country code and subscriber number, no
 * spaces), e.g. `+14155550123`. Validation by libphonenumber-js (ITU-T E.164 + per-country numbering plans).
 */
export function isValidE164(value: string): boolean {
  if (!/^\+[1-9]\d{6,14}$/.test(value)) return false;
  const parsed = parsePhoneNumberFromString(value);
  return parsed !== undefined && parsed.isValid() && parsed.number === value;
}

/**
 * A phone as staff type it, normalised to E.164 (`+14155550123`) with libphonenumber-js: in international form
 * (`+1 415-555-0123`, `+44 20 7946 0958`), or in national form (`(415) 555-0123`, `020 7946 0958`) when the store's
 * `defaultCountry` (ISO 3166-1 alpha-2) says which country it belongs to. Undefined when it is not a valid number.
 */
export function normalizePhone(input: string, defaultCountry?: string): string | undefined {
  const trimmed = input.trim();
  if (trimmed.length > 32) return undefined;
  if (!trimmed.startsWith('+') && (!defaultCountry || !isSupportedCountry(defaultCountry))) return undefined;
  const parsed = trimmed.startsWith('+') ? parsePhoneNumberFromString(trimmed) : parsePhoneNumberFromString(trimmed, defaultCountry as CountryCode);
  return parsed && parsed.isValid() ? parsed.number : undefined;
}

/** True for an ISO 3166-1 alpha-2 code libphonenumber-js knows the numbering plan of (e.g. `US`, `GB`, `FR`). */
export function isPhoneCountry(code: string): boolean {
  return /^[A-Z]{2}$/.test(code) && isSupportedCountry(code);
}

/**
 * The card terminal's tokens of approved card sales: a refund to the card goes through the terminal with
 * the original sale's token (docs/devices.md `REFUND|ref|amountCents|currency|token`), which the order does not carry.
 * The register keeps each approved sale's token here, keyed by the terminal's auth code and the card's last four (what
 * the order's tender keeps), the newest {@link MAX_TOKENS}. A token is the terminal's reference, never a card number.
 */
const KEY = 'register.cardTokens.v1';
/** How many tokens are kept (the oldest go first). */
export const MAX_TOKENS = 2000;

type TokenMap = Record<string, string>;

const keyOf = (authCode: string, last4: string | undefined) => `${authCode}:${last4 ?? ''}`;

function read(): TokenMap {
  try {
    const parsed = JSON.parse(localStorage.getItem(KEY) ?? '{}') as unknown;
    return parsed && typeof parsed === 'object' ? (parsed as TokenMap) : {};
  } catch {
    return {};
  }
}

/** Keeps the token of a card sale the terminal approved (`authCode`, `last4` as on the tender). Never throws. */
export function rememberCardToken(result: { authCode?: string | undefined; last4?: string | undefined; token?: string | undefined }): void {
  if (!result.authCode || !result.token) return;
  try {
    const map = read();
    delete map[keyOf(result.authCode, result.last4)];
    map[keyOf(result.authCode, result.last4)] = result.token;
    const keys = Object.keys(map);
    for (const k of keys.slice(0, Math.max(0, keys.length - MAX_TOKENS))) delete map[k];
    localStorage.setItem(KEY, JSON.stringify(map));
  } catch {
    // Storage full or unavailable: a refund of this sale then goes back another way (the cashier is told).
  }
}

/** The terminal token of the card tender (auth code and last four), if this register kept it. */
export function cardTokenOf(tender: { authCode?: string | undefined; last4?: string | undefined }): string | undefined {
  if (!tender.authCode) return undefined;
  return read()[keyOf(tender.authCode, tender.last4)];
}

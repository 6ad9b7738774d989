/**
 * The boundary's exemptions are narrow: a SHA-256 digest whose hex happens to hold a Luhn-valid run of digits is kept
 * in a `headHash` field (an audit checkpoint a register hands back was refused about once in a few hundred hashes), a
 * key id of 16 hex digits in a `keyId` field (the checkpoint's signing key), and refused anywhere else or in any other
 * shape.
 */
import { describe, expect, it } from 'vitest';
import { cardNumberRule } from '../../core/card-number-guard.ts';

const DIGEST_WITH_A_CARD_RUN = `4111111111111111${'a'.repeat(48)}`;

describe('card-number rule exemptions', () => {
  it('keeps a hex digest in headHash, refuses it elsewhere and refuses a card number in headHash that is no digest', () => {
    expect(DIGEST_WITH_A_CARD_RUN).toMatch(/^[0-9a-f]{64}$/);
    expect(cardNumberRule('headHash', DIGEST_WITH_A_CARD_RUN)).toBe('keep');
    expect(cardNumberRule('name', DIGEST_WITH_A_CARD_RUN)).toBe('refuse');
    expect(cardNumberRule(undefined, DIGEST_WITH_A_CARD_RUN)).toBe('refuse');
    expect(cardNumberRule('headHash', '4111 1111 1111 1111')).toBe('refuse');
    expect(cardNumberRule('headHash', DIGEST_WITH_A_CARD_RUN.toUpperCase())).toBe('refuse');
    expect(cardNumberRule('headHash', `${DIGEST_WITH_A_CARD_RUN}0`)).toBe('refuse');
  });

  it("keeps a signing key's 16-hex id in keyId, refuses it elsewhere and refuses a card number in keyId in any other shape", () => {
    const keyId = '4222222222222abc'; // 4222 2222 2222 2: a 13-digit Visa test number
    expect(cardNumberRule('keyId', keyId)).toBe('keep');
    expect(cardNumberRule('id', keyId)).toBe('refuse');
    expect(cardNumberRule('keyId', '4111 1111 1111 1111')).toBe('refuse');
    expect(cardNumberRule('keyId', `${keyId}0`)).toBe('refuse');
    expect(cardNumberRule('keyId', keyId.toUpperCase())).toBe('refuse');
  });
});

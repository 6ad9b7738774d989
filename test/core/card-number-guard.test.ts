/**
 * The boundary's exemptions are narrow: a SHA-256 digest whose hex happens to hold a Luhn-valid run of digits is kept
 * in a `headHash` field (an audit checkpoint a register hands back was refused about once in a few hundred hashes),
 * and refused anywhere else or in any other shape.
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
});

/** core/apps.ts: the app review state machine, edits of listed apps, scope sets and the redirect-URI rule. */
import { describe, expect, it } from 'vitest';
import {
  APP_REVIEWED_FIELDS,
  APP_STATUSES,
  IllegalTransitionError,
  nextAppStatus,
  redirectUriProblem,
  reviewedChanges,
  sameScopes,
  statusAfterEdit,
  type AppReviewAction,
} from '../../core/index.ts';

describe('app review state machine', () => {
  it('allows exactly draft → submitted → in_review → approved | rejected, approved → listed, rejected → submitted', () => {
    const allowed: string[] = [];
    const actions: AppReviewAction[] = ['submit', 'start_review', 'approve', 'reject', 'list'];
    for (const from of APP_STATUSES) {
      for (const action of actions) {
        try {
          allowed.push(`${from} ${action} → ${nextAppStatus(from, action, false)}`);
        } catch (err) {
          expect(err).toBeInstanceOf(IllegalTransitionError);
          expect((err as IllegalTransitionError).entity).toBe('app');
        }
      }
    }
    expect(allowed.sort()).toEqual(
      [
        'approved list → listed',
        'draft submit → submitted',
        'in_review approve → approved',
        'in_review reject → rejected',
        'rejected submit → submitted',
        'submitted start_review → in_review',
      ].sort(),
    );
  });

  it('lists an already-listed app again on approval of its new version', () => {
    expect(nextAppStatus('in_review', 'approve', true)).toBe('listed');
    expect(nextAppStatus('in_review', 'reject', true)).toBe('rejected');
  });

  it('names the reviewed fields a working copy changes: scopes, price, redirect URIs, launch URL, form', () => {
    const listed = {
      form: 'external' as const,
      scopes: ['orders:read'],
      redirectUris: ['https://a.example/cb'],
      launchUrl: 'https://a.example/connect',
      priceCents: 90_000,
      currency: 'USD',
    };
    expect(reviewedChanges(listed, listed)).toEqual([]);
    expect(reviewedChanges({ ...listed, redirectUris: ['https://a.example/cb', 'https://a.example/cb'], scopes: ['orders:read'] }, listed)).toEqual(
      [],
    );
    expect(reviewedChanges({ ...listed, priceCents: 10_000_000 }, listed)).toEqual(['pricing']);
    expect(reviewedChanges({ ...listed, currency: 'EUR' }, listed)).toEqual(['pricing']);
    expect(reviewedChanges({ ...listed, redirectUris: ['https://evil.example/cb'], launchUrl: 'https://evil.example/connect' }, listed)).toEqual([
      'redirectUris',
      'launchUrl',
    ]);
    expect(reviewedChanges({ ...listed, scopes: ['orders:read', 'pay:create'], form: 'in_platform' }, listed)).toEqual(['scopes', 'form']);
    expect(reviewedChanges({ ...listed, priceCents: 0, currency: null }, { ...listed, priceCents: 0, currency: 'USD' })).toEqual([]);
    expect(reviewedChanges(listed, null)).toEqual([...APP_REVIEWED_FIELDS]);
  });

  it('sends a listed app back to review only when a reviewed field changes; freezes apps under review', () => {
    expect(statusAfterEdit('listed', true, true)).toBe('submitted');
    expect(statusAfterEdit('listed', true, false)).toBe('listed');
    expect(statusAfterEdit('rejected', true, false)).toBe('listed');
    expect(statusAfterEdit('rejected', true, true)).toBe('submitted');
    expect(statusAfterEdit('rejected', false, true)).toBe('rejected');
    expect(statusAfterEdit('approved', false, false)).toBe('draft');
    expect(statusAfterEdit('draft', false, true)).toBe('draft');
    expect(() => statusAfterEdit('submitted', false, true)).toThrow(IllegalTransitionError);
    expect(() => statusAfterEdit('in_review', true, false)).toThrow(IllegalTransitionError);
  });

  it('compares scopes as sets', () => {
    expect(sameScopes(['orders:read', 'webhooks'], ['webhooks', 'orders:read', 'webhooks'])).toBe(true);
    expect(sameScopes(['orders:read'], ['orders:read', 'webhooks'])).toBe(false);
  });
});

describe('redirect URIs (RFC 6749 §3.1.2, RFC 8252 §7.3)', () => {
  it('takes https anywhere and http on loopback only', () => {
    for (const ok of [
      'https://app.example/cb',
      'https://app.example:8443/oauth/cb?x=1',
      'http://127.0.0.1:9999/cb',
      'http://[::1]/cb',
      'http://localhost:3000/cb',
    ])
      expect(redirectUriProblem(ok), ok).toBeNull();
    for (const bad of [
      'http://app.example/cb',
      'http://127.0.0.1.nip.io/cb',
      'https://app.example/cb#x',
      'https://user:pw@app.example/cb',
      'ftp://app.example/cb',
      'javascript:alert(1)',
      '/relative/cb',
      'app.example/cb',
    ])
      expect(redirectUriProblem(bad), bad).not.toBeNull();
  });
});

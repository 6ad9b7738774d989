/**
 * Runs before every test file (vitest.config.ts `setupFiles`): when a test fails, the browser pages its file opened
 * print their last requests and console messages (e2e/support/trail.ts), so a flaky browser test can be read from the
 * CI log. Files that open no page print nothing.
 */
import { beforeEach } from 'vitest';
import { recordedTrails } from '../e2e/support/trail.ts';

beforeEach(({ onTestFailed }) => {
  onTestFailed(() => {
    const trails = recordedTrails();
    if (trails) console.error(trails);
  });
});

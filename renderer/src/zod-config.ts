/**
 * Zod's settings for the register, set before any schema is built (main.tsx imports this module first). `jitless`:
 * Zod otherwise probes whether it may compile parsers with `Function(...)`, which the register's
 * Content-Security-Policy (`script-src 'self'`, no `'unsafe-eval'`) forbids — the probe fails safely but files a CSP
 * violation report on every start. Parsing is the same, only not compiled.
 */
import { z } from 'zod';

z.config({ jitless: true });

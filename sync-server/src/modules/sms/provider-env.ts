/**
 * What every carrier's configuration reads from the environment the same way: which provider `SMS_PROVIDER` names,
 * its API base `SMS_API_BASE` and the sending number `SMS_FROM` (docs/decisions/0091-sms-through-a-provider-api.md,
 * docs/decisions/0092-vonage-and-quiet-hours.md). carrier.ts (`twilio`) and vonage.ts (`vonage`) read their own
 * variables on top.
 */

/** The carriers a deployment can send through (`SMS_PROVIDER`). */
const SMS_PROVIDERS = ['twilio', 'vonage'] as const;
type SmsProviderName = (typeof SMS_PROVIDERS)[number];

/** The shared part of a provider's configuration, and `need` to read its own required variables. */
interface SmsProviderEnv {
  /** `SMS_API_BASE`, or the provider's default, without trailing slashes. */
  apiBase: string;
  /** `SMS_FROM`, E.164. */
  from: string;
  /**
   * The trimmed value of the variable `name`.
   * @throws Error `SMS_PROVIDER=<provider> needs <name>.` when it is unset or blank.
   */
  need: (name: string) => string;
}

/**
 * Reads `SMS_PROVIDER`, `SMS_API_BASE` (default `defaults.apiBase`) and `SMS_FROM` for `provider`, in that order.
 * Null when `SMS_PROVIDER` is unset, empty or names the other supported provider (whose reader answers instead).
 * `defaults.fromExample` is the E.164 number the `SMS_FROM` error shows.
 * @throws Error naming the variable for an unknown provider, an `SMS_API_BASE` that is not an http(s) URL, a missing
 *   `SMS_FROM` or one that is not E.164.
 */
export function smsProviderEnv(
  env: Record<string, string | undefined>,
  provider: SmsProviderName,
  defaults: { apiBase: string; fromExample: string },
): SmsProviderEnv | null {
  const named = env.SMS_PROVIDER?.trim();
  if (!named || (named !== provider && SMS_PROVIDERS.includes(named as SmsProviderName))) return null;
  if (named !== provider) throw new Error(`SMS_PROVIDER=${named} is not supported: use "twilio" (a Twilio-compatible API) or "vonage".`);
  const need = (name: string): string => {
    const value = env[name]?.trim();
    if (!value) throw new Error(`SMS_PROVIDER=${provider} needs ${name}.`);
    return value;
  };
  const apiBase = (env.SMS_API_BASE?.trim() || defaults.apiBase).replace(/\/+$/, '');
  if (!/^https?:\/\/[^\s/]+/.test(apiBase)) throw new Error(`SMS_API_BASE must be an http(s) URL, e.g. ${defaults.apiBase}.`);
  const from = need('SMS_FROM');
  if (!/^\+[1-9]\d{6,14}$/.test(from)) throw new Error(`SMS_FROM must be a phone number in E.164, e.g. ${defaults.fromExample}.`);
  return { apiBase, from, need };
}

/**
 * A restaurant's service charge and automatic gratuity, added to a check's totals. Pure: no I/O.
 *
 * - **Service charge**: a rate (basis points) of every check's pre-tax net — what the dishes come to after discounts,
 *   inclusive tax taken out — when the rate is above 0.
 * - **Automatic gratuity**: a rate of the same base, for parties of `gratuityPartySize` guests or more.
 *
 * Each is one line of kind `service` added to the check's priced lines (catalog ids `itm_service_charge` /
 * `itm_auto_gratuity`), rounded half-even once, so a split ({@link splitCheck}) shares it among the parts like any
 * other line and every part still balances and the parts add up to the whole.
 *
 * **Taxability.** Each is taxable or not, by the store's setting. A charge the guest must pay is, in most US states
 * (and for VAT), part of the price of the meal and taxed like it — unlike a tip the guest chooses, which is not a sale.
 * Some states exempt a mandatory gratuity that goes wholly to the staff. So both default to taxable, and a store in
 * such a state turns it off. A taxable charge carries the exclusive rates given by the caller (the store's rates
 * that apply to food sold on the premises); a charge never carries an inclusive rate — it is not a shelf price.
 * (Source: the "mandatory service charges" rules of state sales tax, e.g. New York TB-ST-283, California Regulation
 * 1603(f).)
 */
import { z } from 'zod';
import { allocateProRata, mulDivHalfEven, sumCents } from './money.ts';
import type { OrderTotals } from './pricing.ts';
import type { LineTax, OrderLine, TaxLine } from './schemas.ts';

/** The store's service charge and automatic gratuity (`GET`/`PUT /api/pos/service-charges`). */
export const serviceChargeSettingsSchema = z.strictObject({
  serviceChargeBasisPoints: z.int().min(0).max(10_000).describe('Service charge on every check, basis points of its pre-tax net (0: none).'),
  serviceChargeTaxable: z.boolean().describe('Whether the service charge is taxed like the meal (default true).'),
  gratuityBasisPoints: z.int().min(0).max(10_000).describe('Automatic gratuity, basis points of the pre-tax net (0: none).'),
  gratuityPartySize: z.int().min(1).max(99).describe('The gratuity is added for parties of this many guests or more.'),
  gratuityTaxable: z.boolean().describe('Whether the automatic gratuity is taxed like the meal (default true).'),
});
export type ServiceChargeSettings = z.infer<typeof serviceChargeSettingsSchema>;

/** Neither charge: what a store has until it sets them. */
export const DEFAULT_SERVICE_CHARGE_SETTINGS: ServiceChargeSettings = {
  serviceChargeBasisPoints: 0,
  serviceChargeTaxable: true,
  gratuityBasisPoints: 0,
  gratuityPartySize: 6,
  gratuityTaxable: true,
};

/** Thrown when a taxable charge is handed an inclusive rate. */
export class ServiceChargeError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ServiceChargeError';
  }
}

/**
 * `totals` (core/pricing.ts `computeOrderTotals` over a check's live lines) with the service charge and the automatic
 * gratuity for a party of `guests` added as lines (after the check's own, in that order), and the tax lines and
 * totals recomputed: each rate's tax on its new taxable amount, rounded half-even once as `computeOrderTotals` does,
 * shared over the lines that carry it pro rata. Pass the result to `splitCheck` with the charge lines appended to the
 * check's lines (seat null: shared by every part).
 * @param taxes the exclusive rates a taxable charge carries (usually the store's rates on food)
 * @param ids the ids of the two charge lines (`lin_…`), so that a register and the server name them alike
 * @returns the totals, and the charge lines added (none when neither applies)
 * @throws ServiceChargeError when `taxes` holds an inclusive rate
 */
export function addServiceCharges(
  totals: OrderTotals,
  guests: number,
  settings: ServiceChargeSettings,
  taxes: readonly LineTax[],
  ids: { serviceCharge: string; gratuity: string },
): { totals: OrderTotals; charges: OrderLine[] } {
  if (taxes.some((t) => t.inclusive)) throw new ServiceChargeError('a service charge carries exclusive tax rates only');
  const base = totals.subtotalCents - totals.discountCents - totals.inclusiveTaxCents;
  const charge = (id: string, slug: string, name: string, basisPoints: number, taxable: boolean): OrderLine[] => {
    const cents = mulDivHalfEven(base, basisPoints, 10_000);
    if (cents <= 0) return [];
    return [
      {
        id,
        catalogItemId: `itm_${slug}`,
        variationId: `var_${slug}`,
        kind: 'service',
        name,
        variationName: `${basisPoints / 100} %`,
        modifiers: [],
        quantity: 1,
        unitPriceCents: cents,
        grossCents: cents,
        discountCents: 0,
        netCents: cents,
        taxCents: 0,
        taxes: taxable ? [...taxes] : [],
      },
    ];
  };
  const charges = [
    ...charge(ids.serviceCharge, 'service_charge', 'Service charge', settings.serviceChargeBasisPoints, settings.serviceChargeTaxable),
    ...(guests >= settings.gratuityPartySize
      ? charge(ids.gratuity, 'auto_gratuity', 'Gratuity', settings.gratuityBasisPoints, settings.gratuityTaxable)
      : []),
  ];
  if (charges.length === 0) return { totals, charges };

  const lines = [...totals.lines, ...charges];
  const rates: (LineTax | TaxLine)[] = [...totals.taxLines];
  for (const t of taxes) if (!rates.some((r) => r.taxRateId === t.taxRateId)) rates.push(t);
  const lineTaxes = lines.map(() => 0);
  const taxLines: TaxLine[] = rates.map((rate) => {
    const carriers = lines.map((l) => l.taxes.some((t) => t.taxRateId === rate.taxRateId));
    const held = totals.taxLines.find((t) => t.taxRateId === rate.taxRateId);
    const added = sumCents(charges.filter((c) => c.taxes.some((t) => t.taxRateId === rate.taxRateId)).map((c) => c.netCents));
    const taxableCents = (held?.taxableCents ?? 0) + added;
    // Unchanged rates keep their tax as the check priced it; a rate the charges carry is taxed again on its new base.
    const taxCents =
      added === 0 && held
        ? held.taxCents
        : rate.inclusive
          ? mulDivHalfEven(taxableCents, rate.basisPoints, 10_000 + rate.basisPoints)
          : mulDivHalfEven(taxableCents, rate.basisPoints, 10_000);
    allocateProRata(
      taxCents,
      lines.map((l, i) => (carriers[i] ? l.netCents : 0)),
    ).forEach((s, i) => (lineTaxes[i] = lineTaxes[i]! + s));
    return { taxRateId: rate.taxRateId, name: rate.name, basisPoints: rate.basisPoints, inclusive: rate.inclusive, taxableCents, taxCents };
  });
  const chargeCents = sumCents(charges.map((c) => c.grossCents));
  const taxCents = sumCents(taxLines.map((t) => t.taxCents));
  const inclusiveTaxCents = sumCents(taxLines.filter((t) => t.inclusive).map((t) => t.taxCents));
  const subtotalCents = totals.subtotalCents + chargeCents;
  return {
    totals: {
      lines: lines.map((l, i) => ({ ...l, taxCents: lineTaxes[i]! })),
      taxLines,
      subtotalCents,
      discountCents: totals.discountCents,
      taxCents,
      inclusiveTaxCents,
      totalCents: subtotalCents - totals.discountCents + taxCents - inclusiveTaxCents,
    },
    charges,
  };
}

/**
 * The exclusive rates a taxable charge of a check carries: every exclusive rate its dishes carry, once each, in order
 * of first use — so a register and the server tax the charge alike from the check alone.
 */
export function chargeTaxesOf(lines: readonly OrderLine[]): LineTax[] {
  const out: LineTax[] = [];
  for (const l of lines) for (const t of l.taxes) if (!t.inclusive && !out.some((r) => r.taxRateId === t.taxRateId)) out.push(t);
  return out;
}

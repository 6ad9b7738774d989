/**
 * Receipt numbers are per register: `R<register number>-<sequence, 6+ digits>`, e.g. `R2-000123`, so two
 * registers selling offline never hand out the same number.
 */
export function formatReceiptNumber(registerNumber: number, sequence: number): string {
  if (!Number.isInteger(registerNumber) || registerNumber < 1) throw new RangeError('registerNumber must be a positive integer');
  if (!Number.isInteger(sequence) || sequence < 1) throw new RangeError('sequence must be a positive integer');
  return `R${registerNumber}-${String(sequence).padStart(6, '0')}`;
}

/** Parses `R2-000123` → `{ registerNumber: 2, sequence: 123 }`, or undefined when it is not a receipt number. */
export function parseReceiptNumber(value: string): { registerNumber: number; sequence: number } | undefined {
  const m = /^R(\d{1,4})-(\d{6,})$/.exec(value);
  if (!m) return undefined;
  return { registerNumber: Number(m[1]), sequence: Number(m[2]) };
}

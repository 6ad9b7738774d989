/**
 * Staff as the staff API takes them (`POST /api/pos/staff`): the roles, the PIN's form and the create body, each field
 * with its own rule — shared by the sync server (which validates the body with it) and the back office's form (which
 * checks each field with the same rule before sending).
 */
import { z } from 'zod';
import { idnEmail, nonBlankText } from './schemas.ts';

/** A staff PIN: 4 to 8 digits. */
export const PIN_PATTERN = /^\d{4,8}$/;

/** What a staff member may do: owners everything, managers the store's day-to-day, cashiers sell. */
export const staffRoleSchema = z.enum(['owner', 'manager', 'cashier']);
export type StaffRole = z.infer<typeof staffRoleSchema>;

/** A PIN as a request body carries it. */
export const staffPinText = z.string().regex(PIN_PATTERN, 'must be 4 to 8 digits');

/** The fields of `POST /api/pos/staff`, each with its own rule. */
export const staffCreateFields = {
  name: nonBlankText(80),
  email: idnEmail.optional(),
  role: staffRoleSchema,
  pin: staffPinText.optional().describe('4 to 8 digits; stored as a scrypt hash'),
};
/** `POST /api/pos/staff` body. */
export const staffCreateSchema = z.strictObject(staffCreateFields);

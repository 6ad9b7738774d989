/**
 * Appointments: services, resources (chairs, rooms, basins), staff schedules and the appointment book
 * (core/appointments.ts, decision 0110).
 *
 * The module's face: code outside the module imports only this file (rule `outside-a-module-only-its-face` in
 * .dependency-cruiser.cjs). The module's own files import each other directly, never this file.
 */

// HTTP routes, mounted by app.ts.
export { registerAppointmentRoutes } from './routes.ts';

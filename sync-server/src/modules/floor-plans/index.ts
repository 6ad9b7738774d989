/**
 * Floor plans: a restaurant's areas and tables (core/floor-plan.ts).
 *
 * The module's face: code outside the module imports only this file (rule `outside-a-module-only-its-face` in
 * .dependency-cruiser.cjs). The module's own files import each other directly, never this file.
 */

// HTTP routes, mounted by app.ts.
export { registerFloorPlanRoutes } from './routes.ts';
// Saving the plan, for the workflow that keeps tables with open checks (workflows/floor-plan-save.ts).
export { saveFloorPlan } from './service.ts';

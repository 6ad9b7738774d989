/**
 * Import rules of the repository (docs/architecture.md), checked by dependency-cruiser inside `npm test`
 * (`npm run lint:deps`). A deliberate violation under test/fixtures/import-rules proves the check fails
 * (test/repo/import-rules.test.ts).
 *
 * Paths are relative to the folder depcruise runs in (the repository root, or a fixture tree shaped like it).
 */
const SERVER = '^sync-server/src/';
const RENDERER = '^renderer/src/';
/** The renderer's screen rooms: each is composed with the others only at the top (app.tsx). */
const SCREEN_ROOMS = 'register|backoffice|apps|kitchen';

/** npm packages the pure domain may use: schemas, ids, phone numbers, recurrence (no I/O). */
const CORE_PACKAGES = ['zod', 'ulid', 'libphonenumber-js', 'rrule', 'luxon'];

module.exports = {
  forbidden: [
    {
      name: 'no-circular',
      severity: 'error',
      comment:
        'Files import each other in a circle: one concept belongs in one place. A circle closed only by type imports ' +
        "(erased at build, no load order) is allowed: two files may name each other's types.",
      from: {},
      to: { circular: true, viaOnly: { dependencyTypesNot: ['type-only'] } },
    },
    {
      name: 'core-is-pure',
      severity: 'error',
      comment: 'core/ is the pure POS domain: no Node built-ins (no I/O) and only the listed pure packages.',
      from: { path: '^core/' },
      to: {
        dependencyTypesNot: ['type-only'],
        pathNot: ['^core/', ...CORE_PACKAGES.map((p) => `(^|/)node_modules/${p}/`)],
      },
    },
    {
      name: 'core-imports-nothing-of-ours',
      severity: 'error',
      comment: 'core/ is imported by everyone and imports none of the apps.',
      from: { path: '^core/' },
      to: { path: '^(renderer|electron|sync-server|scripts|build|test)/' },
    },
    {
      name: 'apps-do-not-import-each-other',
      severity: 'error',
      comment: 'renderer/, electron/ and sync-server/ depend on core/ only, never on each other.',
      from: { path: '^(renderer|electron|sync-server)/' },
      to: { path: '^(renderer|electron|sync-server)/', pathNot: ['^$1/'] },
    },
    {
      name: 'platform-knows-no-domain',
      severity: 'error',
      comment: 'platform/ (database, HTTP conventions, auth, rate limits, change feed) knows no domain.',
      from: { path: `${SERVER}platform/` },
      to: { path: `${SERVER}(kernel|modules|workflows|sync)/|${SERVER}(app|main)\\.ts$` },
    },
    {
      name: 'kernel-stands-on-platform',
      severity: 'error',
      comment: 'kernel/ (mutation, audit, outbox, ledger) imports only core and the platform.',
      from: { path: `${SERVER}kernel/` },
      to: { path: `${SERVER}(modules|workflows|sync)/|${SERVER}(app|main)\\.ts$` },
    },
    {
      name: 'modules-do-not-import-each-other',
      severity: 'error',
      comment: 'A module imports core, the platform and the kernel only; work that spans modules is a workflow.',
      from: { path: `${SERVER}modules/([^/]+)/` },
      to: { path: `${SERVER}modules/`, pathNot: [`${SERVER}modules/$1/`] },
    },
    {
      name: 'outside-a-module-only-its-face',
      severity: 'error',
      comment:
        'Each module has one public face, modules/<name>/index.ts, re-exporting what the rest of the server uses. ' +
        'Workflows, sync/, the app wiring and any other server file outside the modules import a module only through ' +
        'it, never its internal files. (Another module may not import it at all: modules-do-not-import-each-other; ' +
        "the module's own files import each other directly: a-module-does-not-import-its-own-face.) Tests may reach inside.",
      from: { path: SERVER, pathNot: `${SERVER}modules/` },
      to: { path: `${SERVER}modules/[^/]+/(?!index\\.ts$)` },
    },
    {
      name: 'a-module-does-not-import-its-own-face',
      severity: 'error',
      comment:
        "A module's files import their siblings directly: going through their own index.ts would load the face from " +
        'inside it (an import circle as soon as the file is one the face re-exports).',
      from: { path: `${SERVER}modules/([^/]+)/` },
      to: { path: `${SERVER}modules/$1/index\\.ts$` },
    },
    {
      name: 'modules-do-not-import-upward',
      severity: 'error',
      comment: 'Modules never import workflows, the sync protocol or the app wiring.',
      from: { path: `${SERVER}modules/` },
      to: { path: `${SERVER}(workflows|sync)/|${SERVER}(app|main)\\.ts$` },
    },
    {
      name: 'workflows-below-transport',
      severity: 'error',
      comment: 'Workflows span modules; they are called by routes and sync/, never the other way round.',
      from: { path: `${SERVER}workflows/` },
      to: { path: `${SERVER}sync/|${SERVER}(app|main)\\.ts$` },
    },
    {
      name: 'sync-speaks-protocol-only',
      severity: 'error',
      comment: 'sync/ speaks the replication protocol and calls workflows (the register sale) or one module to read.',
      from: { path: `${SERVER}sync/` },
      to: { path: `${SERVER}(app|main)\\.ts$` },
    },
    {
      name: 'renderer-screen-rooms-stay-apart',
      severity: 'error',
      comment:
        'register/, backoffice/ and apps/ never import each other: what two of them use lives in common/ (or ui/), ' +
        "and a screen that shows another room's screen is handed it by app.tsx (the Apps screen in Services and the back office).",
      from: { path: `${RENDERER}(${SCREEN_ROOMS})/` },
      to: { path: `${RENDERER}(${SCREEN_ROOMS})/`, pathNot: [`${RENDERER}$1/`] },
    },
    {
      name: 'renderer-common-below-the-rooms',
      severity: 'error',
      comment:
        'common/ (cash rules, register and staff session, sync status, back-office API client, staff sign-in, header) is ' +
        'used by the screen rooms and imports none of them.',
      from: { path: `${RENDERER}common/` },
      to: { path: `${RENDERER}(${SCREEN_ROOMS})/` },
    },
    {
      name: 'renderer-ui-and-platform-at-the-bottom',
      severity: 'error',
      comment: 'ui/ (widgets, hooks) and platform/ (device clients) know no screen: they import neither the rooms nor common/.',
      from: { path: `${RENDERER}(ui|platform)/` },
      to: { path: `${RENDERER}(${SCREEN_ROOMS}|common)/` },
    },
    {
      name: 'renderer-top-imported-by-none',
      severity: 'error',
      comment: 'app.tsx and main.tsx compose the rooms; no room imports them back.',
      from: { path: `${RENDERER}[^/]+/` },
      to: { path: `${RENDERER}(app|main)\\.tsx?$` },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '(^|/)(node_modules|dist|dist-electron|data)/' },
    tsPreCompilationDeps: true,
    combinedDependencies: false,
    enhancedResolveOptions: {
      exportsFields: ['exports'],
      conditionNames: ['import', 'require', 'node', 'default', 'types'],
      extensions: ['.ts', '.tsx', '.js', '.mjs', '.cjs', '.json'],
    },
  },
};

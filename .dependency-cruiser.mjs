// `npm run deps`: the layering of src/ (README.md, "Development"), checked on every import.
// Type-only imports count (tsPreCompilationDeps): a circle through a type is a circle for the
// reader, and a layer that names another's types knows it.

/** Database and GitHub clients: a layer that may not reach the store or GitHub may not reach these. */
const DATABASE_CLIENTS = '^node_modules/(pg|drizzle-orm|@electric-sql/pglite)/';
const GITHUB_CLIENTS = '^node_modules/(@octokit/[^/]+|probot)/';

/** @type {import('dependency-cruiser').IConfiguration} */
export default {
  forbidden: [
    {
      name: 'no-circular',
      comment:
        'No import circles in src/: each layer and each module within one can be read, tested and ' +
        'changed from the bottom up, and one delivery goes down the layers once (README.md, ' +
        '"Development"). Break a circle by moving a shared type to a module of its own or by ' +
        'inverting the dependency, never by an exception.',
      severity: 'error',
      from: { path: '^src/' },
      to: { circular: true },
    },
    {
      name: 'handlers-through-engine',
      comment:
        'Webhook handlers are thin: they turn a payload into a small event and call the engine, ' +
        'which reads the state, has core decide and applies the effects (README.md, ' +
        '"Development"). They import the engine and pure modules (core, protocol, config), but ' +
        'no code of src/store or src/github, nor a database or GitHub client. Type-only imports of ' +
        'src/store and src/github are allowed: the handlers are handed the store and a GitHub ' +
        'port through AppServices (handlers/app-services.ts) and name their types (Store, ' +
        'RunRow, GitHubPort, RepoCoords). An import rule cannot see calls on those objects: the ' +
        'handlers still call methods of the store and the port they are handed.',
      severity: 'error',
      from: { path: '^src/handlers/' },
      to: {
        path: ['^src/(store|github)/', '^db/', DATABASE_CLIENTS, GITHUB_CLIENTS],
        dependencyTypesNot: ['type-only'],
      },
    },
    {
      name: 'core-is-pure',
      comment:
        'src/core is the pure coordination logic, decide(snapshot) -> effects (README.md, ' +
        '"Development"): it imports only core, protocol (the names and formats shared with the ' +
        'worker) and pure libraries (yaml, for the tasks block: docs/tasks-block.md). No store, ' +
        'GitHub, engine, config loading, clock, file system or other Node built-in: what a ' +
        'decision needs is passed in, so a table test can reach every rule.',
      severity: 'error',
      from: { path: '^src/core/' },
      to: { pathNot: ['^src/(core|protocol)/', '^node_modules/yaml/'] },
    },
    {
      name: 'store-knows-no-engine-or-github',
      comment:
        'src/store is Postgres behind a small store (README.md, "Development"): it reads and ' +
        'writes rows and guards moves in SQL, and may use core for its tables; it never calls ' +
        'the engine above it nor GitHub, so a statement never waits on a network call and the ' +
        'store can be tested against Postgres alone.',
      severity: 'error',
      from: { path: '^src/store/' },
      to: { path: ['^src/(engine|github)/', GITHUB_CLIENTS] },
    },
    {
      name: 'worker-never-store-or-engine',
      comment:
        'src/worker is the worker action, bundled into actions/worker/dist/index.cjs and run in ' +
        "the user's Actions jobs (docs/worker.md). It holds no database credential and talks to " +
        'the coordinator only over HTTP (POST /api/worker/assignment) and to GitHub with the ' +
        "assignment's token: the coordinator's store and engine are no part of it.",
      severity: 'error',
      from: { path: '^src/worker/' },
      to: { path: ['^src/(store|engine)/', '^db/', DATABASE_CLIENTS] },
    },
    {
      name: 'dashboard-never-calls-github',
      comment:
        'The dashboard shows what the shared database holds, polled by each replica (README.md, ' +
        '"Dashboard"): a page view never spends an installation\'s rate limit or write budget, ' +
        'and it works the same whatever GitHub answers.',
      severity: 'error',
      from: { path: '^src/dashboard/' },
      to: { path: ['^src/github/', GITHUB_CLIENTS] },
    },
    {
      name: 'resolvable',
      comment:
        'Every import resolves to a file: one the resolver cannot follow would slip past every ' +
        'rule above unseen.',
      severity: 'error',
      from: { path: '^src/' },
      to: { couldNotResolve: true },
    },
  ],
  options: {
    doNotFollow: { path: '^node_modules/' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    // Resolve packages as Node does for this ESM project: by package.json "exports", with the
    // "import" condition (@octokit/rest and other ESM-only packages have no other).
    enhancedResolveOptions: {
      exportsFields: ['exports'],
      conditionNames: ['import', 'node', 'default', 'types'],
    },
  },
};

/**
 * The layer rules of docs/architecture.md, enforced by `npm run deps:check` (part of `npm test`).
 * Bottom-up: errors → redact → process, events → driver (the SPI) → inspect, input, resources →
 * thread (store port) → agent (core) → drivers/* → testing → server → cli. A module may import its own
 * layer or any layer below it; every rule below names one way of reaching up.
 */
const below = (...folders) => `^src/(?!(${folders.join("|")})/)`;

/** @type {import("dependency-cruiser").IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: "no-circular",
      severity: "error",
      comment: "An import cycle makes load order and layering undefined; split the shared part into the lower module.",
      from: { path: "^src/" },
      to: { circular: true },
    },
    {
      name: "errors-at-the-bottom",
      severity: "error",
      comment: "errors/ is the vocabulary of failures every layer throws; it imports no other layer.",
      from: { path: "^src/errors/" },
      to: { path: below("errors") },
    },
    {
      name: "redact-stands-alone",
      severity: "error",
      comment: "redact/ is the bottom module process/, inspect/, core and drivers all scrub with; it imports no other layer.",
      from: { path: "^src/redact/" },
      to: { path: below("redact") },
    },
    {
      name: "process-below-inspect",
      severity: "error",
      comment: "process/ (spawn, framing, JSON-RPC, reaping) stands only on errors/ and redact/, so every layer above can own children.",
      from: { path: "^src/process/" },
      to: { path: below("process", "errors", "redact") },
    },
    {
      name: "events-below-spi",
      severity: "error",
      comment: "events/ (the canonical events and Result) stands only on errors/: drivers emit them and core validates them.",
      from: { path: "^src/events/" },
      to: { path: below("events", "errors") },
    },
    {
      name: "vocabulary-leaves",
      severity: "error",
      comment: "input/kinds.ts and inspect/types.ts are the input and inspection vocabulary the SPI names; they import nothing above events/.",
      from: { path: "^src/(input/kinds|inspect/types)\\.ts$" },
      to: { path: below("events", "errors") },
    },
    {
      name: "spi-stands-alone",
      severity: "error",
      comment: "driver/ is the SPI third-party drivers build on: it stands on errors/, redact/, process/, events/ and the input and inspection vocabulary, never on core, threads or a driver.",
      from: { path: "^src/driver/" },
      to: {
        path: below("driver", "errors", "redact", "process", "events"),
        pathNot: "^src/(input/kinds|inspect/types)\\.ts$",
      },
    },
    {
      name: "services-below-core",
      severity: "error",
      comment: "inspect/, input/ and resources/ serve core and drivers alike, so they stand on the SPI and below, never on threads, core, drivers, testing or the CLI.",
      from: { path: "^src/(inspect|input|resources)/" },
      to: { path: "^src/(thread|agent|drivers|testing|cli)/" },
    },
    {
      name: "thread-port-below-core",
      severity: "error",
      comment: "thread/ is the store port core calls and the stores implementing it; core (agent/) stands on it, never the other way round.",
      from: { path: "^src/thread/" },
      to: { path: "^src/(agent|drivers|testing|cli)/" },
    },
    {
      name: "core-knows-no-driver",
      severity: "error",
      comment: "Core speaks only the SPI; a concrete driver is chosen by the host, never imported by the library below drivers/.",
      from: { path: "^src/(errors|redact|process|events|driver|inspect|input|resources|thread|agent|session)/" },
      to: { path: "^src/drivers/" },
    },
    {
      name: "no-driver-imports-core",
      severity: "error",
      comment: "A driver stands on the SPI beside core, not on it: importing agent/ or thread/ would make core's internals part of every driver.",
      from: { path: "^src/drivers/" },
      to: { path: "^src/(agent|thread|session|testing|cli)/" },
    },
    {
      name: "drivers-side-by-side",
      severity: "error",
      comment: "Drivers do not import each other; claude and codebuddy are presets of the stream-json family they are built on.",
      from: { path: "^src/drivers/([^/]+)/" },
      to: { path: "^src/drivers/", pathNot: ["^src/drivers/$1/", "^src/drivers/stream-json/"] },
    },
    {
      name: "bridge-driver-beside-core",
      severity: "error",
      comment: "A bridge's client driver (src/bridges/<name>/driver/) is a driver: it stands on the SPI, never on core, threads, a driver, testing, or its bridge's server side (which may use core).",
      from: { path: "^src/bridges/([^/]+)/driver/" },
      to: { path: ["^src/(agent|thread|session|drivers|testing|cli)/", "^src/bridges/$1/server/"] },
    },
    {
      name: "core-knows-no-runtime",
      severity: "error",
      comment: "Sessions, bridges and host tools are built on the public API of core; core, the SPI, threads and drivers never reach up to them.",
      from: { path: "^src/(errors|redact|process|events|driver|inspect|input|resources|thread|agent|drivers)/" },
      to: { path: "^src/(session|bridges|hosttools)/" },
    },
    {
      name: "session-on-core",
      severity: "error",
      comment: "session/ is a layer over Agent and Thread that works the same on every driver: it never imports a driver, a bridge or a host tool.",
      from: { path: "^src/session/" },
      to: { path: "^src/(drivers|bridges|hosttools)/" },
    },
    {
      name: "bridges-speak-the-public-contract",
      severity: "error",
      comment: "A bridge maps canonical events and sessions to someone else's protocol: it never imports a concrete driver or a host tool.",
      from: { path: "^src/bridges/" },
      to: { path: "^src/(drivers|hosttools)/" },
    },
    {
      name: "hosttools-over-the-public-api",
      severity: "error",
      comment: "An optional host tool (hosttools/slash) drives sessions, threads and agents only through their public API, never a driver or a bridge.",
      from: { path: "^src/hosttools/" },
      to: { path: "^src/(drivers|bridges)/" },
    },
    {
      name: "testing-below-cli",
      severity: "error",
      comment: "The testing kit is a library subpath; the CLI is an application on top of everything and nothing imports it.",
      from: { path: "^src/(?!cli/)" },
      to: { path: "^src/cli/" },
    },
    {
      name: "library-never-imports-testing",
      severity: "error",
      comment: "testing/ (fakes, conformance) is for tests and driver authors; shipping code below it must not depend on it.",
      from: { path: "^src/(errors|redact|process|events|driver|inspect|input|resources|thread|agent|session|drivers)/" },
      to: { path: "^src/testing/" },
    },
    {
      name: "server-below-cli-only",
      severity: "error",
      comment: "server/ (the attach server) is an application layer over the public API, sessions, bridges and drivers: only the CLI may import it.",
      from: { path: "^src/(?!(server|cli)/)" },
      to: { path: "^src/server/" },
    },
    {
      name: "server-uses-testing-for-its-demo-only",
      severity: "error",
      comment: "The server reaches into testing/ only for the offline demo agent (the scripted model server) and the config's scripted `fake` driver; never conformance kits or real-CLI helpers.",
      from: { path: "^src/server/" },
      to: { path: "^src/testing/", pathNot: "^src/testing/(model-server|fake-driver)/" },
    },
  ],
  options: {
    doNotFollow: { path: "node_modules" },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: "tsconfig.json" },
    enhancedResolveOptions: { extensions: [".ts", ".js"] },
  },
};

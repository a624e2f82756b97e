/**
 * `agent-adaptor/testing`: tools for testing integrations without paid calls — a scriptable
 * fake driver, the driver conformance kit and the scripted model server.
 */
export { fakeDriver } from "./fake-driver/driver.js";
export type { FakeDriver, FakeDriverOptions, FakeDriverProbe } from "./fake-driver/driver.js";
export type { FakeRunScript, FakeStep } from "./fake-driver/script.js";
export { runDriverConformance } from "./conformance.js";
export type { ConformanceFixtures, ConformanceRunner } from "./conformance.js";

/**
 * `agent-adaptor/bridges/a2a`: the A2A protocol (Agent2Agent) both ways, on the A2A project's own
 * SDK (`@a2a-js/sdk`, an optional peer loaded only here): `a2aServer()` serves an Agent as an A2A
 * agent, and `a2a()` is a driver making any remote A2A agent an agent of this library.
 */
export { a2aServer } from "./server/server.js";
export type { A2AAgentCardJson, A2AServer, A2AServerOptions } from "./server/server.js";
export type { A2ACardFields, A2ASkillFields } from "./server/card-fields.js";
export { a2a } from "./driver/driver.js";
export type { A2ADriver } from "./driver/driver.js";
export type { A2AAuth, A2AConfig } from "./driver/config.js";

/**
 * Refusal before launch (DESIGN: a required resource that cannot be delivered fails explicitly):
 * the agent's resources, and a run's services, against what the driver's descriptor says it
 * delivers. The descriptor is static, so construction resources are refused at `createAgent` and
 * services when the run is started: no process ever starts for a configuration the driver would
 * drop. `mcp.http: "advertised"` passes here; the driver refuses at initialization when the
 * provider does not advertise HTTP MCP.
 */
import type { ResolvedResources, ResourceSupport } from "../driver/types.js";
import { FeatureUnsupportedError } from "../errors/index.js";

/** The resource names core checks (a service is a host tool offered to one run). */
export interface NamedResource {
  name: string;
}

/** What a descriptor without `resources` (a driver written before they existed) delivers: nothing. */
const NOTHING: ResourceSupport = { instructions: false, hostTools: false, skills: false, mcp: { stdio: false, http: false } };

/** The descriptor's resource support; a driver that declares none delivers none. */
export function resourceSupportOf(descriptor: { resources?: ResourceSupport }): ResourceSupport {
  return descriptor.resources ?? NOTHING;
}

/** Throws `FeatureUnsupportedError` for the first resource the driver does not deliver. */
export function checkResourceSupport(driverId: string, support: ResourceSupport, resources: ResolvedResources): void {
  if (resources.instructions !== undefined && !support.instructions) {
    throw new FeatureUnsupportedError("instructions", driverId, { kind: "instructions" });
  }
  const tool = resources.tools[0];
  if (tool && !support.hostTools) throw new FeatureUnsupportedError("host tools", driverId, { kind: "tool", name: tool.name });
  const skill = resources.skills[0];
  if (skill && !support.skills) throw new FeatureUnsupportedError("skills", driverId, { kind: "skill", name: skill.name });
  for (const server of resources.mcp) {
    const stdio = "command" in server;
    if (stdio ? !support.mcp.stdio : support.mcp.http === false) {
      throw new FeatureUnsupportedError(stdio ? "MCP servers over stdio" : "MCP servers over HTTP", driverId, { kind: "mcp", name: server.name });
    }
  }
}

/** Throws `FeatureUnsupportedError` when a run adds services the driver cannot offer its provider. */
export function checkServiceSupport(driverId: string, support: ResourceSupport, services: readonly NamedResource[] | undefined): void {
  const service = services?.[0];
  if (service && !support.hostTools) throw new FeatureUnsupportedError("run-scoped services (host tools)", driverId, { kind: "service", name: service.name });
}

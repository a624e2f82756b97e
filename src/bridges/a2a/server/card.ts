/**
 * The agent card of a served Agent, from its inspection: the agent's native commands and skills
 * as A2A skills (each only when observed), capabilities as they are — streaming yes, push
 * notifications no (not built) — and one JSON-RPC interface at the server's URL. The caller's
 * `card` fields win over the generated ones.
 */
import type { AgentCard, AgentSkill } from "@a2a-js/sdk";
import type { Inspection } from "../../../inspect/types.js";
import type { A2ACardFields } from "./card-fields.js";

/** The A2A protocol version the server speaks. */
export const PROTOCOL_VERSION = "1.0";

function skill(id: string, name: string, description: string | undefined, tags: string[]): AgentSkill {
  return { id, name, description: description ?? name, tags, examples: [], inputModes: [], outputModes: [], securityRequirements: [] };
}

/** A2A skills from the observed native commands and skills (none when unobserved). */
export function skillsOf(inspection: Inspection): AgentSkill[] {
  const skills: AgentSkill[] = [];
  if (inspection.skills.status === "observed") {
    for (const s of inspection.skills.value?.skills ?? []) {
      if (s.enabled !== false) skills.push(skill(`skill:${s.name}`, s.name, s.description, ["skill"]));
    }
  }
  if (inspection.commands.status === "observed") {
    for (const c of inspection.commands.value ?? []) skills.push(skill(`command:${c.name}`, `/${c.name}`, c.description, ["command"]));
  }
  return skills;
}

function overridesOf(fields: A2ACardFields): Partial<AgentCard> {
  const { skills, securitySchemes, securityRequirements, ...plain } = fields;
  return {
    ...plain,
    ...(skills !== undefined ? { skills: skills.map((s) => ({ ...skill(s.id, s.name, s.description, s.tags ?? []), examples: s.examples ?? [], inputModes: s.inputModes ?? [], outputModes: s.outputModes ?? [] })) } : {}),
    ...(securitySchemes !== undefined ? { securitySchemes: securitySchemes as AgentCard["securitySchemes"] } : {}),
    ...(securityRequirements !== undefined ? { securityRequirements: securityRequirements as AgentCard["securityRequirements"] } : {}),
  };
}

export function buildAgentCard(inspection: Inspection, url: string, fields: A2ACardFields = {}): AgentCard {
  const environment = inspection.environment.status === "observed" ? inspection.environment.value : undefined;
  const name = environment?.agentTitle ?? environment?.agentName ?? inspection.driver.name;
  const generated: AgentCard = {
    name,
    description: `${inspection.driver.name} coding agent served by agent-adaptor`,
    supportedInterfaces: [{ url, protocolBinding: "JSONRPC", tenant: "", protocolVersion: PROTOCOL_VERSION }],
    provider: undefined,
    version: environment?.version ?? "unknown",
    capabilities: { streaming: true, pushNotifications: false, extensions: [], extendedAgentCard: false },
    securitySchemes: {},
    securityRequirements: [],
    defaultInputModes: ["text/plain"],
    defaultOutputModes: ["text/plain"],
    skills: skillsOf(inspection),
    signatures: [],
  };
  return { ...generated, ...overridesOf(fields) };
}

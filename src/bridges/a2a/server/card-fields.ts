/** The agent card fields a host sets (no SDK types: these are public declarations). */
/** One skill of the card, as a host names it (absent lists are empty). */
export interface A2ASkillFields {
  id: string;
  name: string;
  description: string;
  tags?: string[];
  examples?: string[];
  inputModes?: string[];
  outputModes?: string[];
}

/**
 * Agent card fields a host sets over the generated ones (A2A 1.0 names). `securitySchemes` and
 * `securityRequirements` are passed through as given, in the `@a2a-js/sdk` shapes.
 */
export interface A2ACardFields {
  name?: string;
  description?: string;
  version?: string;
  provider?: { organization: string; url: string };
  documentationUrl?: string;
  iconUrl?: string;
  skills?: A2ASkillFields[];
  defaultInputModes?: string[];
  defaultOutputModes?: string[];
  securitySchemes?: Record<string, unknown>;
  securityRequirements?: unknown[];
}

/**
 * The agents a server drives, built once at start from its configuration (or the offline demo
 * agent when there is none), all sharing the server's thread store.
 */
import { stat } from "node:fs/promises";
import { createAgent, type Agent } from "../agent/agent.js";
import type { AgentOptions } from "../agent/options.js";
import { ConfigError } from "../errors/index.js";
import type { ThreadStore } from "../thread/store.js";
import type { AgentConfig } from "./config.js";
import { startDemoAgent } from "./demo.js";
import { createServerDriver } from "./drivers.js";

export interface ServedAgent {
  name: string;
  agent: Agent;
  workspace: string;
}

export interface ServedAgents {
  readonly byName: ReadonlyMap<string, ServedAgent>;
  close(): Promise<void>;
}

async function checkWorkspace(name: string, path: string): Promise<void> {
  const info = await stat(path).catch(() => undefined);
  if (!info?.isDirectory()) throw new ConfigError(`agents.${name}.workspace is not an existing directory`);
}

/** Construct every agent; on a failure, what was started is closed again before it is thrown. */
export async function startAgents(configs: Record<string, AgentConfig>, stateDir: string, threadStore: ThreadStore): Promise<ServedAgents> {
  const byName = new Map<string, ServedAgent>();
  const closers: (() => Promise<void>)[] = [];
  const close = async (): Promise<void> => {
    await Promise.allSettled(closers.splice(0).reverse().map((fn) => fn()));
  };
  try {
    for (const [name, config] of Object.entries(configs)) {
      let driver;
      let workspace = config.workspace;
      if (config.driver === "demo") {
        if (config.options !== undefined && Object.keys(config.options).length > 0) throw new ConfigError(`agents.${name}.options: the demo driver takes no options`);
        const demo = await startDemoAgent(stateDir, name, workspace);
        closers.push(() => demo.close());
        driver = demo.driver;
        workspace = demo.workspace;
      } else {
        driver = createServerDriver(config.driver, config.options ?? {});
      }
      await checkWorkspace(name, workspace!);
      const options: AgentOptions = { workspace: workspace!, threadStore };
      if (config.defaults !== undefined) options.defaults = config.defaults as AgentOptions["defaults"];
      const agent = createAgent(driver, options);
      closers.push(() => agent.close());
      byName.set(name, { name, agent, workspace: workspace! });
    }
  } catch (error) {
    await close();
    throw error;
  }
  return { byName, close };
}

/**
 * A remote A2A agent written the way the A2A SDK's samples write one: an `AgentExecutor` behind
 * the SDK's own `DefaultRequestHandler` and its express routers (`jsonRpcHandler`,
 * `agentCardHandler`). Nothing of this library is in it. Mounted twice: `/open` and `/secured`
 * (a bearer token required for JSON-RPC; the card stays public, as A2A cards are).
 */
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { randomUUID } from "node:crypto";
import { Role, TaskState, type AgentCard, type Message, type Part } from "@a2a-js/sdk";
import { AgentEvent, DefaultRequestHandler, InMemoryTaskStore, type AgentExecutor, type ExecutionEventBus, type RequestContext } from "@a2a-js/sdk/server";
import { agentCardHandler, jsonRpcHandler, UserBuilder } from "@a2a-js/sdk/server/express";
// @ts-expect-error -- express ships no types in this repository; the SDK's routers need it
import express from "express";

export const SDK_AGENT_TEXT = "Hello from the A2A agent.";

const text = (value: string): Part => ({ content: { $case: "text", value }, metadata: undefined, filename: "", mediaType: "text/plain" });
const textOf = (m: Message | undefined) => (m?.parts ?? []).map((p) => (p.content?.$case === "text" ? p.content.value : "")).join("");

/** What the agent saw, for assertions. */
export interface SdkAgentLog {
  contextIds: string[];
  prompts: string[];
  cancelled: string[];
}

class SampleExecutor implements AgentExecutor {
  readonly waiting = new Map<string, () => void>();
  constructor(readonly log: SdkAgentLog) {}

  execute = async (ctx: RequestContext, bus: ExecutionEventBus): Promise<void> => {
    const { taskId, contextId } = ctx;
    const now = () => new Date().toISOString();
    const status = (state: TaskState, message?: string) =>
      bus.publish(AgentEvent.statusUpdate({ taskId, contextId, status: { state, message: message === undefined ? undefined : { messageId: randomUUID(), taskId, contextId, role: Role.ROLE_AGENT, parts: [text(message)], metadata: undefined, extensions: [], referenceTaskIds: [] }, timestamp: now() }, metadata: undefined }));
    const artifact = (value: string, append: boolean, lastChunk: boolean) =>
      bus.publish(AgentEvent.artifactUpdate({ taskId, contextId, artifact: { artifactId: "answer", name: "answer", description: "", parts: [text(value)], metadata: undefined, extensions: [] }, append, lastChunk, metadata: undefined }));
    const prompt = textOf(ctx.userMessage);
    this.log.prompts.push(prompt);
    this.log.contextIds.push(contextId);
    bus.publish(AgentEvent.task(ctx.task ? { ...ctx.task, status: { state: TaskState.TASK_STATE_WORKING, message: undefined, timestamp: now() } } : { id: taskId, contextId, status: { state: TaskState.TASK_STATE_SUBMITTED, message: undefined, timestamp: now() }, artifacts: [], history: [ctx.userMessage], metadata: {} }));
    status(TaskState.TASK_STATE_WORKING);
    if (ctx.task?.status?.state === TaskState.TASK_STATE_INPUT_REQUIRED) {
      artifact(`Nice to meet you, ${prompt}.`, false, true);
      status(TaskState.TASK_STATE_COMPLETED);
      return;
    }
    if (prompt.startsWith("SLOW")) {
      artifact("working ", false, false);
      await new Promise<void>((resolve) => this.waiting.set(taskId, resolve));
      return;
    }
    if (prompt.startsWith("ASK")) return status(TaskState.TASK_STATE_INPUT_REQUIRED, "What is your name?");
    if (prompt.startsWith("FILE")) {
      const file: Part = { content: { $case: "url", value: "https://example.com/report.pdf" }, metadata: undefined, filename: "report.pdf", mediaType: "application/pdf" };
      bus.publish(AgentEvent.artifactUpdate({ taskId, contextId, artifact: { artifactId: "report", name: "report", description: "", parts: [text("See "), file], metadata: undefined, extensions: [] }, append: false, lastChunk: true, metadata: undefined }));
      return status(TaskState.TASK_STATE_COMPLETED);
    }
    if (prompt.startsWith("LEAK")) {
      const headers = ctx.context.state.get("headers") as Record<string, string> | undefined;
      return status(TaskState.TASK_STATE_FAILED, `refused: ${headers?.authorization ?? "no credentials"}`);
    }
    artifact("Hello from ", false, false);
    artifact("the A2A agent.", true, true);
    status(TaskState.TASK_STATE_COMPLETED);
  };

  cancelTask = async (taskId: string, bus: ExecutionEventBus): Promise<void> => {
    this.log.cancelled.push(taskId);
    this.waiting.get(taskId)?.();
    bus.publish(AgentEvent.statusUpdate({ taskId, contextId: "", status: { state: TaskState.TASK_STATE_CANCELED, message: undefined, timestamp: new Date().toISOString() }, metadata: undefined }));
  };
}

export interface SdkAgent {
  base: string;
  log: SdkAgentLog;
  close(): Promise<void>;
}

function card(url: string, secured: boolean): AgentCard {
  return {
    name: "sample-agent",
    description: "An A2A agent built with the SDK alone",
    supportedInterfaces: [{ url, protocolBinding: "JSONRPC", tenant: "", protocolVersion: "1.0" }],
    provider: undefined,
    version: "1.2.3",
    capabilities: { streaming: true, pushNotifications: false, extensions: [], extendedAgentCard: false },
    securitySchemes: secured ? { bearer: { scheme: { $case: "httpAuthSecurityScheme", value: { description: "", scheme: "bearer", bearerFormat: "" } } } } : {},
    securityRequirements: secured ? [{ schemes: { bearer: { list: [] } } }] : [],
    defaultInputModes: ["text/plain"],
    defaultOutputModes: ["text/plain"],
    skills: [{ id: "greet", name: "greet", description: "Greets people", tags: ["demo"], examples: [], inputModes: [], outputModes: [], securityRequirements: [] }],
    signatures: [],
  };
}

export async function startSdkAgent(token: string): Promise<SdkAgent> {
  const log: SdkAgentLog = { contextIds: [], prompts: [], cancelled: [] };
  const app = express();
  const http: Server = createServer(app);
  await new Promise<void>((resolve) => http.listen(0, "127.0.0.1", resolve));
  const base = `http://127.0.0.1:${(http.address() as AddressInfo).port}`;
  for (const [path, secured] of [["/open", false], ["/secured", true]] as const) {
    const agentCard = card(`${base}${path}`, secured);
    const handler = new DefaultRequestHandler(agentCard, new InMemoryTaskStore(), new SampleExecutor(log));
    app.use(`${path}/.well-known/agent-card.json`, agentCardHandler({ agentCardProvider: handler }));
    if (secured) {
      app.use(path, (req: { headers: Record<string, string | undefined> }, res: { status(code: number): { json(body: unknown): void } }, next: () => void) => {
        // Echoes what it got, as a careless server would: the driver must redact it.
        if (req.headers.authorization !== `Bearer ${token}`) return res.status(401).json({ error: `bad credentials: ${req.headers.authorization ?? "none"}` });
        next();
      });
    }
    app.use(path, jsonRpcHandler({ requestHandler: handler, userBuilder: UserBuilder.noAuthentication }));
  }
  return {
    base,
    log,
    async close() {
      http.closeAllConnections();
      await new Promise<void>((resolve) => http.close(() => resolve()));
    },
  };
}

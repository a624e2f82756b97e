/**
 * Attribute and instrument names: the OpenTelemetry GenAI semantic conventions where they have
 * one (`gen_ai.*`, `error.type`), `agent_adaptor.*` for what they do not cover.
 */
export const ATTR = {
  operationName: "gen_ai.operation.name",
  system: "gen_ai.system",
  providerName: "gen_ai.provider.name",
  agentName: "gen_ai.agent.name",
  requestModel: "gen_ai.request.model",
  conversationId: "gen_ai.conversation.id",
  inputTokens: "gen_ai.usage.input_tokens",
  outputTokens: "gen_ai.usage.output_tokens",
  finishReasons: "gen_ai.response.finish_reasons",
  tokenType: "gen_ai.token.type",
  toolName: "gen_ai.tool.name",
  toolCallId: "gen_ai.tool.call.id",
  toolType: "gen_ai.tool.type",
  errorType: "error.type",
  runId: "agent_adaptor.run.id",
  runStatus: "agent_adaptor.run.status",
  effort: "agent_adaptor.request.effort",
  providerSessionId: "agent_adaptor.provider_session_id",
  cachedInputTokens: "agent_adaptor.usage.cached_input_tokens",
  reasoningTokens: "agent_adaptor.usage.reasoning_output_tokens",
  costUsd: "agent_adaptor.usage.cost_usd",
  toolKind: "agent_adaptor.tool.kind",
  toolStatus: "agent_adaptor.tool.status",
  toolExitCode: "agent_adaptor.tool.exit_code",
  mcpServer: "agent_adaptor.mcp.server",
  mcpTool: "agent_adaptor.mcp.tool",
  approvalKind: "agent_adaptor.approval.kind",
  approvalDecision: "agent_adaptor.approval.decision",
  resolvedBy: "agent_adaptor.request.resolved_by",
  questionAnswered: "agent_adaptor.question.answered",
  noticeCode: "agent_adaptor.notice.code",
  noticeLevel: "agent_adaptor.notice.level",
} as const;

export const OPERATION = {
  run: "invoke_agent",
  tool: "execute_tool",
  approval: "approval",
  question: "user_input",
} as const;

export const METRIC = {
  operationDuration: "gen_ai.client.operation.duration",
  tokenUsage: "gen_ai.client.token.usage",
  runs: "agent_adaptor.runs",
  failures: "agent_adaptor.run.failures",
  cost: "agent_adaptor.run.cost",
  toolCalls: "agent_adaptor.tool.calls",
  approvals: "agent_adaptor.approvals",
} as const;

/** The instrumentation scope's name (tracer and meter). */
export const SCOPE_NAME = "agent-adaptor";

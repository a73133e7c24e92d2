// The public surface of Baton. Re-exports only; every name is listed explicitly.

// §3 Models and §4 tools and agents.
export type { AgentOptions } from './agents/agent.js';
export { Agent } from './agents/agent.js';
export type {
  AgentContext,
  AgentPause,
  AgentResponse,
  ChatAgent,
  HandoffGuard,
  HandoffGuardContext,
} from './agents/chat-agent.js';
// §18 conversation state.
export type { Instructions, InstructionsContext } from './agents/agent-instructions.js';
export type {
  StateOption,
  StatePatchOp,
  StateRecipe,
  StateValue,
} from './agents/conversation-state.js';
export type { CallState, StateBatch, TurnState } from './agents/turn-state.js';
export type {
  Guardrail,
  GuardrailInput,
  GuardrailOptions,
  GuardrailResult,
  GuardrailSet,
} from './agents/guardrail.js';
export { guardrail } from './agents/guardrail.js';
export type { BriefCheck, HandoffBrief, HandoffOptions } from './agents/handoff.js';
export { Handoff } from './agents/handoff.js';
export type { JsonSchemaObject } from './agents/json-schema-arguments.js';
export type {
  McpHttpServerConfig,
  McpServerConfig,
  McpStdioServerConfig,
} from './agents/mcp/mcp-server-config.js';
export type {
  McpTool,
  McpToolApproval,
  McpTools,
  McpToolsOptions,
} from './agents/mcp/mcp-tools.js';
export { mcpTools } from './agents/mcp/mcp-tools.js';
export type {
  NeedsApproval,
  Tool,
  ToolArguments,
  ToolContext,
  ToolEffect,
  ToolOptions,
  ToolParameters,
} from './agents/tool.js';
export { tool } from './agents/tool.js';
export type {
  Timer,
  ToolErrorHandler,
  ToolErrorInfo,
  ToolMiddleware,
} from './agents/tool-execution.js';
export type {
  CheckpointRecord,
  CheckpointStore,
  ReadOptions,
} from './checkpoint/checkpoint-store.js';
export { FileCheckpointStore } from './checkpoint/file-checkpoint-store.js';
export { MemoryCheckpointStore } from './checkpoint/memory-checkpoint-store.js';
export type {
  AppendOptions,
  ListOptions,
  SessionPage,
  SessionSummary,
} from './checkpoint/session-list.js';
export {
  PostgresCheckpointStore,
  type PostgresCheckpointStoreOptions,
  type PostgresPool,
} from './checkpoint/postgres-checkpoint-store.js';
export {
  RedisCheckpointStore,
  type RedisCheckpointStoreOptions,
  type RedisClient,
} from './checkpoint/redis-checkpoint-store.js';
export type { ConsoleOptions } from './console.js';
export { Console } from './console.js';
export type { CheckpointOptions } from './engine/log/checkpoint-link.js';
export type { TeamCheckpointOptions } from './engine/log/checkpointing.js';
export type {
  Runnable,
  RunOptions,
  Session,
  SessionInfo,
  Task,
  TaskResult,
} from './engine/runnable.js';
export type { CheckpointInfo } from './engine/log/checkpoint-info.js';
export type { PendingRequest } from './engine/state/session-state.js';
export type { ThreadPredicate } from './engine/state/stop-rule.js';
export type { CheckpointedSession, SessionOptions } from './engine/session/workflow-runner.js';
export { checkSessions, type SessionCheck } from './engine/session/check-sessions.js';
export type { FeedEvent } from './engine/feed/run-event.js';
export type { FeedOptions } from './engine/feed/session-feed.js';
export type { RecordOptions } from './engine/recording/record.js';
export type {
  RecordedAnswer,
  RecordedParticipant,
  RecordedRun,
  RecordedStateUpdate,
  RecordedTurn,
  Recording,
} from './engine/recording/recording.js';
export type { Divergence } from './engine/recording/replay-controller.js';
export type { ReplayTools } from './engine/recording/replay-tools.js';
export { replay, type ReplayOptions, type ReplayReport } from './engine/recording/replay.js';
export {
  CheckpointError,
  ConfigError,
  SessionBusyError,
  StoreUnavailableError,
  TerminatedError,
} from './errors.js';
export type { LLMMessage } from './messages/llm-message.js';
export type {
  AgentEvent,
  AgentMessage,
  ChatMessage,
  FunctionCall,
  FunctionExecutionResult,
  GuardrailTrippedEvent,
  HandoffMessage,
  MessageBase,
  ModelClientStreamingChunkEvent,
  SelectSpeakerEvent,
  StopMessage,
  StructuredMessage,
  TextMessage,
  ThoughtEvent,
  ToolApprovalRequestEvent,
  ToolApprovalResponseEvent,
  ToolCallExecutionEvent,
  ToolCallRequestEvent,
  ToolCallSummaryMessage,
  ToolInDoubtEvent,
  Usage,
  UserInputRequestedEvent,
} from './messages/message.js';
export { isAgentEvent, isChatMessage } from './messages/message.js';
export type { ApproveOptions, MessageInit } from './messages/message-factories.js';
export {
  approve,
  handoffMessage,
  reject,
  resolve,
  selectSpeakerEvent,
  stopMessage,
  streamingChunkEvent,
  structuredMessage,
  textMessage,
  thoughtEvent,
  toolCallExecutionEvent,
  toolCallRequestEvent,
  toolCallSummaryMessage,
  userInputRequestedEvent,
} from './messages/message-factories.js';
export { AgentMessageSchema } from './messages/message-schema.js';
export { messageToText } from './messages/message-text.js';
export type { HistoryView, ModelViewOptions, ToolCallFilter } from './messages/model-view.js';
// §24 handoff briefs.
export type { HandoffInfo } from './messages/handoff-brief.js';
export { toModelMessages } from './messages/model-view.js';
export { speakerOf } from './messages/provider-turns.js';
export type { ChatClient, ModelRequest, ModelResult, ToolSchema } from './models/chat-client.js';
export type { OpenAIChatClientOptions } from './models/openai-chat-client.js';
export { OpenAIChatClient } from './models/openai-chat-client.js';
export type { AiSdkChatClientOptions, AiSdkLanguageModel } from './models/ai-sdk-chat-client.js';
export { AiSdkChatClient } from './models/ai-sdk-chat-client.js';
export type { EnvironmentModel } from './models/model-from-environment.js';
export { modelFromEnvironment } from './models/model-from-environment.js';
export type {
  ScriptedCall,
  ScriptedChatClientOptions,
  ScriptedStep,
  ScriptedSteps,
} from './models/scripted-chat-client.js';
export { serve } from './serve/serve.js';
export type {
  ConsumeOptions,
  Consumer,
  Dispatcher,
  JobOutcome,
  RunJob,
} from './workers/dispatcher.js';
export {
  PgBossDispatcher,
  type PgBossDispatcherOptions,
  type PgBossLike,
} from './workers/pg-boss-dispatcher.js';
export {
  BullMQDispatcher,
  type BullMQConnection,
  type BullMQDispatcherOptions,
} from './workers/bullmq-dispatcher.js';
export { startWorker, type Worker, type WorkerOptions } from './workers/start-worker.js';
export type { BudgetsOptions } from './workers/tenant-budget.js';
export type {
  Principal,
  Servable,
  ServedWorkflow,
  ServeHandler,
  ServeOptions,
} from './serve/serve-options.js';
export type {
  AttributeValue,
  FinishedSpan,
  GenAIOperation,
  SpanAttributes,
  SpanListener,
} from './observability/tracing.js';
export { onSpanEnd } from './observability/tracing.js';
export {
  ScriptedChatClient,
  scriptedText,
  scriptedToolCall,
} from './models/scripted-chat-client.js';
export {
  type AddHandoffOptions,
  type AutonomousModeOptions,
  type CoordinatorOptions,
  HandoffBuilder,
  type HandoffBuilderOptions,
  type LazyRoutingOptions,
  type ResolverOptions,
} from './orchestrations/handoff/handoff-builder.js';
export type {
  ClassifierFunction,
  ParticipantInfo,
} from './orchestrations/handoff/handoff-router.js';
export type { UserReplyRouting } from './orchestrations/handoff/handoff-machine.js';
export { HandoffWorkflow } from './orchestrations/handoff/handoff-workflow.js';
export {
  GraphBuilder,
  type GraphBuilderOptions,
  type GraphEdgeOptions,
  type GraphNodeOptions,
  type GraphNodeRef,
} from './orchestrations/graph/graph-builder.js';
export { DIGRAPH_COMPLETE } from './orchestrations/graph/graph-orchestration.js';
export type { Activation, EdgeCondition } from './orchestrations/graph/graph-topology.js';
export { GraphWorkflow } from './orchestrations/graph/graph-workflow.js';
export { type AsAgentOptions, asAgent } from './orchestrations/as-agent.js';
export {
  RoundRobinGroupChat,
  type RoundRobinGroupChatOptions,
} from './orchestrations/teams/round-robin-group-chat.js';
export {
  type SelectorFunc,
  SelectorGroupChat,
  type SelectorGroupChatOptions,
} from './orchestrations/teams/selector-group-chat.js';
export { Swarm, type SwarmOptions } from './orchestrations/teams/swarm.js';
export type {
  MaxMessageTerminationOptions,
  TokenUsageTerminationOptions,
} from './termination/budget-conditions.js';
export { MaxMessageTermination, TokenUsageTermination } from './termination/budget-conditions.js';
export type { CostTerminationOptions } from './termination/cost-termination.js';
export { CostTermination } from './termination/cost-termination.js';
export type { ModelPrice, ModelPrices, PriceFunction } from './termination/cost-prices.js';
export type { ModelCallPlan, ModelCallRefusal, SettledUsage } from './termination/model-call.js';
export type { TimeoutTerminationOptions } from './termination/control-conditions.js';
export {
  ExternalTermination,
  FunctionalTermination,
  TimeoutTermination,
} from './termination/control-conditions.js';
export type { TextMentionTerminationOptions } from './termination/message-conditions.js';
export {
  FunctionCallTermination,
  HandoffTermination,
  SourceMatchTermination,
  StopMessageTermination,
  TextMentionTermination,
  TextMessageTermination,
} from './termination/message-conditions.js';
export {
  AndTerminationCondition,
  OrTerminationCondition,
  TerminationCondition,
} from './termination/termination-condition.js';
export { terminationFromJSON } from './termination/termination-config.js';
export type { TerminationConfig } from './termination/termination-config-types.js';

// src/index.ts exports the names API.md documents and the types their signatures use, nothing
// else (issue 28): an internal helper that slips into the index fails here, and so does a type
// kept in the list below that no documented signature uses any more.
import { readFileSync } from 'node:fs';

import { describe, expect, it } from 'vitest';

import { readPublicSurface } from '../support/public-types.js';

/** API.md's public names (the list shared/tools/api-names.txt keeps beside it, 2026-11-26). */
const API_MD = [
  ...'AiSdkChatClient Agent checkSessions BullMQDispatcher Dispatcher PgBossDispatcher startWorker AgentContext AgentEvent AgentMessage AgentMessageSchema AgentResponse AndTerminationCondition ChatAgent ChatClient ChatMessage CheckpointError CheckpointStore ConfigError Console FeedEvent CostTermination ExternalTermination FileCheckpointStore FunctionCall FunctionCallTermination FunctionExecutionResult FunctionalTermination GraphBuilder GraphWorkflow GuardrailTrippedEvent Handoff HandoffBuilder HandoffMessage HandoffTermination HandoffWorkflow LLMMessage MaxMessageTermination MemoryCheckpointStore ModelClientStreamingChunkEvent ModelRequest ModelResult OpenAIChatClient OrTerminationCondition PostgresCheckpointStore RedisCheckpointStore RoundRobinGroupChat RunOptions Runnable ScriptedChatClient SelectSpeakerEvent SelectorGroupChat Session SessionBusyError SourceMatchTermination StopMessage StopMessageTermination StructuredMessage Swarm Task TaskResult TerminatedError TerminationCondition TextMentionTermination TextMessage TextMessageTermination ThoughtEvent TimeoutTermination TokenUsageTermination ToolApprovalRequestEvent ToolApprovalResponseEvent ToolCallExecutionEvent ToolCallRequestEvent ToolCallSummaryMessage ToolInDoubtEvent ToolMiddleware UserInputRequestedEvent approve asAgent guardrail handoffMessage isAgentEvent isChatMessage mcpTools messageToText reject replay resolve scriptedText scriptedToolCall selectSpeakerEvent serve stopMessage streamingChunkEvent structuredMessage terminationFromJSON textMessage thoughtEvent tool toolCallExecutionEvent toolCallRequestEvent toolCallSummaryMessage userInputRequestedEvent'.split(
    ' ',
  ),
];

/**
 * API.md names that are not in the index yet (their helpers are building them). When one lands,
 * move it out of this list: the test fails until then.
 */
const API_MD_TO_COME: string[] = [];

/** Values the guides document beyond API.md (the lead may add them to API.md). */
const DOCUMENTED_IN_GUIDES = {
  DIGRAPH_COMPLETE: 'docs/teams-and-graphs.md',
  StoreUnavailableError: 'docs/checkpoints-and-stores.md',
  onSpanEnd: 'docs/tracing.md',
  // What a model sees of a thread, and telling the user's turns from other agents' in it.
  toModelMessages: 'docs/concepts.md',
  speakerOf: 'docs/concepts.md',
  modelFromEnvironment: 'docs/getting-started.md',
};

/**
 * Option, result and part types of those names: each is used by the signature of a documented
 * name (checked below), so a caller may need to write it.
 */
const SIGNATURE_TYPES = [
  // §22 the run feed
  'FeedOptions',
  // §16 workers
  'ConsumeOptions',
  'Consumer',
  'JobOutcome',
  'RunJob',
  'PgBossDispatcherOptions',
  'PgBossLike',
  'BullMQConnection',
  'BullMQDispatcherOptions',
  'Worker',
  'WorkerOptions',
  // §25 versions
  'SessionCheck',
  'BudgetsOptions',
  // §18 conversation state
  'HandoffGuard',
  'Instructions',
  'InstructionsContext',
  'StateOption',
  'StatePatchOp',
  'StateRecipe',
  'StateValue',
  'CallState',
  'StateBatch',
  'TurnState',
  // §2–§4 messages, models, tools and agents
  'MessageBase',
  'MessageInit',
  'Usage',
  'ToolCallFilter',
  'ToolSchema',
  'OpenAIChatClientOptions',
  'AiSdkChatClientOptions',
  'AiSdkLanguageModel',
  'EnvironmentModel',
  'ModelViewOptions',
  'ScriptedCall',
  'ScriptedChatClientOptions',
  'ScriptedStep',
  'ScriptedSteps',
  'AgentOptions',
  'AgentPause',
  'Tool',
  'ToolArguments',
  'ToolContext',
  'ToolOptions',
  'ToolParameters',
  'NeedsApproval',
  'ToolEffect',
  'JsonSchemaObject',
  'Timer',
  'ToolErrorHandler',
  'ToolErrorInfo',
  'HandoffOptions',
  'Guardrail',
  'GuardrailInput',
  'GuardrailOptions',
  'GuardrailResult',
  'GuardrailSet',
  'McpHttpServerConfig',
  'McpServerConfig',
  'McpStdioServerConfig',
  'McpTool',
  'McpToolApproval',
  'McpTools',
  'McpToolsOptions',
  // §5 termination
  'MaxMessageTerminationOptions',
  'TextMentionTerminationOptions',
  'TimeoutTerminationOptions',
  'TokenUsageTerminationOptions',
  'TerminationConfig',
  'CostTerminationOptions',
  'ModelPrice',
  'ModelPrices',
  'PriceFunction',
  'ModelCallPlan',
  'ModelCallRefusal',
  'SettledUsage',
  'ApproveOptions',
  // §6–§9 orchestrations, sessions and the console
  'HandoffBuilderOptions',
  'AutonomousModeOptions',
  'LazyRoutingOptions',
  'ResolverOptions',
  'ClassifierFunction',
  'ParticipantInfo',
  'UserReplyRouting',
  'ThreadPredicate',
  'RoundRobinGroupChatOptions',
  'SelectorFunc',
  'SelectorGroupChatOptions',
  'SwarmOptions',
  'TeamCheckpointOptions',
  'GraphBuilderOptions',
  'GraphEdgeOptions',
  'GraphNodeOptions',
  'GraphNodeRef',
  'Activation',
  'EdgeCondition',
  'AsAgentOptions',
  'SessionOptions',
  'CheckpointedSession',
  'SessionInfo',
  'PendingRequest',
  'ConsoleOptions',
  // §8 checkpoint stores
  'CheckpointOptions',
  'CheckpointInfo',
  'CheckpointRecord',
  'ReadOptions',
  'AppendOptions',
  'ListOptions',
  'SessionPage',
  'SessionSummary',
  'PostgresCheckpointStoreOptions',
  'PostgresPool',
  'RedisCheckpointStoreOptions',
  'RedisClient',
  // onSpanEnd (docs/tracing.md)
  'SpanListener',
  'FinishedSpan',
  'SpanAttributes',
  'AttributeValue',
  'GenAIOperation',
  // §19 recorded sessions
  'RecordOptions',
  'Recording',
  'RecordedAnswer',
  'RecordedParticipant',
  'RecordedRun',
  'RecordedStateUpdate',
  'RecordedTurn',
  'ReplayOptions',
  'ReplayReport',
  'ReplayTools',
  'Divergence',
  // §24 handoff briefs
  'AddHandoffOptions',
  'BriefCheck',
  'CoordinatorOptions',
  'HandoffBrief',
  'HandoffGuardContext',
  'HandoffInfo',
  'HistoryView',
  // §15 serving over HTTP
  'Principal',
  'Servable',
  'ServedWorkflow',
  'ServeHandler',
  'ServeOptions',
];

describe('the names src/index.ts exports', () => {
  const surface = readPublicSurface();

  it('are API.md names, values the guides document and the types of their signatures only', () => {
    const allowed = [...API_MD, ...Object.keys(DOCUMENTED_IN_GUIDES), ...SIGNATURE_TYPES];
    expect(surface.names.filter((name) => !allowed.includes(name))).toEqual([]);
    expect(allowed.filter((name) => !surface.names.includes(name))).toEqual([]);
    expect(API_MD_TO_COME.filter((name) => surface.names.includes(name))).toEqual([]);
  });

  it('keeps each listed type because a documented signature uses it', () => {
    const documented = [...API_MD, ...Object.keys(DOCUMENTED_IN_GUIDES)];
    const reached = new Set(surface.reachedFrom(documented).map((type) => type.name));
    expect(SIGNATURE_TYPES.filter((name) => !reached.has(name))).toEqual([]);
  });

  it('names guides that do document those values', () => {
    const undocumented = Object.entries(DOCUMENTED_IN_GUIDES).filter(
      ([name, page]) =>
        !readFileSync(new URL(`../../${page}`, import.meta.url), 'utf8').includes(name),
    );
    expect(undocumented).toEqual([]);
  });
});

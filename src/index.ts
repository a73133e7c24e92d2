// The public surface of Baton (API.md). Re-exports only; every name is listed explicitly.

export { CheckpointError, ConfigError, SessionBusyError, TerminatedError } from './errors.js';
export type {
  AgentEvent,
  AgentMessage,
  ChatMessage,
  FunctionCall,
  FunctionExecutionResult,
  HandoffMessage,
  MessageBase,
  ModelClientStreamingChunkEvent,
  SelectSpeakerEvent,
  StopMessage,
  StructuredMessage,
  TextMessage,
  ThoughtEvent,
  ToolCallExecutionEvent,
  ToolCallRequestEvent,
  ToolCallSummaryMessage,
  Usage,
  UserInputRequestedEvent,
} from './messages/message.js';
export { isAgentEvent, isChatMessage } from './messages/message.js';
export type { MessageInit } from './messages/message-factories.js';
export {
  handoffMessage,
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
export { AgentMessageSchema, ChatMessageSchema } from './messages/message-schema.js';
export { messageToText } from './messages/message-text.js';
export type {
  MaxMessageTerminationOptions,
  TokenUsageTerminationOptions,
} from './termination/budget-conditions.js';
export { MaxMessageTermination, TokenUsageTermination } from './termination/budget-conditions.js';
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
export { Console } from './console.js';
export type { ConsoleOptions } from './console.js';
export type {
  RunOptions,
  Runnable,
  Session,
  SessionInfo,
  Task,
  TaskResult,
} from './engine/runnable.js';
export type { PendingRequest } from './engine/session-state.js';
export type { ThreadPredicate } from './engine/stop-rule.js';
export {
  HandoffBuilder,
  type AutonomousModeOptions,
  type HandoffBuilderOptions,
} from './orchestrations/handoff/handoff-builder.js';
export type { UserReplyRouting } from './orchestrations/handoff/handoff-machine.js';
export { HandoffWorkflow } from './orchestrations/handoff/handoff-workflow.js';
export {
  RoundRobinGroupChat,
  type RoundRobinGroupChatOptions,
} from './orchestrations/teams/round-robin-group-chat.js';

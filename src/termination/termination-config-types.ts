/**
 * The JSON form of a termination condition: `{ type: "<ClassName>", ...constructor options }`.
 * Produced by `toJSON()`, read back by `terminationFromJSON()`.
 */
export type TerminationConfig =
  | { type: 'MaxMessageTermination'; maxMessages: number; includeAgentEvent: boolean }
  | { type: 'TextMentionTermination'; text: string; sources?: string[] }
  | {
      type: 'TokenUsageTermination';
      maxTotalToken?: number;
      maxPromptToken?: number;
      maxCompletionToken?: number;
    }
  | { type: 'TimeoutTermination'; timeoutSeconds: number }
  | { type: 'HandoffTermination'; target: string }
  | { type: 'SourceMatchTermination'; sources: string[] }
  | { type: 'ExternalTermination' }
  | { type: 'StopMessageTermination' }
  | { type: 'TextMessageTermination'; source?: string }
  | { type: 'FunctionCallTermination'; functionName: string }
  | {
      type: 'CostTermination';
      maxUsd: number;
      prices: Record<string, { inputPerMillion: number; outputPerMillion: number }>;
      onExhausted?: 'stop' | 'ask';
      reserveOutputTokens?: number;
    }
  | { type: 'OrTerminationCondition'; conditions: TerminationConfig[] }
  | { type: 'AndTerminationCondition'; conditions: TerminationConfig[] };

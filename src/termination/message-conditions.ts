import type { AgentMessage } from '../messages/message.js';
import { messageToText } from '../messages/message-text.js';
import { LatchingCondition } from './latching-condition.js';
import type { TerminationConfig } from './termination-config-types.js';
import { requireText, requireTextList } from './validate-options.js';

/** Options of `TextMentionTermination`. */
export interface TextMentionTerminationOptions {
  /** Only messages from these sources are searched. @default every source */
  sources?: readonly string[];
}

/**
 * Fires when a message's text (`messageToText`) contains `text`, case-sensitively; only messages
 * from `sources` count when they are given.
 * @example new TextMentionTermination('APPROVE', { sources: ['critic'] })
 */
export class TextMentionTermination extends LatchingCondition {
  protected readonly kind = 'TextMentionTermination';
  readonly text: string;
  readonly sources: readonly string[] | undefined;

  constructor(text: string, options: TextMentionTerminationOptions = {}) {
    super();
    this.text = requireText(this.kind, 'text', text);
    this.sources =
      options.sources === undefined
        ? undefined
        : requireTextList(this.kind, 'sources', options.sources);
  }

  override clone(): TextMentionTermination {
    return new TextMentionTermination(
      this.text,
      this.sources === undefined ? {} : { sources: this.sources },
    );
  }

  protected match(messages: readonly AgentMessage[]): string | null {
    for (const m of messages) {
      if (this.sources !== undefined && !this.sources.includes(m.source)) continue;
      if (messageToText(m).includes(this.text)) return `Text '${this.text}' mentioned`;
    }
    return null;
  }

  override toJSON(): TerminationConfig {
    return this.sources === undefined
      ? { type: this.kind, text: this.text }
      : { type: this.kind, text: this.text, sources: [...this.sources] };
  }
}

/** Fires on a message whose `source` is one of `sources` (e.g. once the critic has answered). */
export class SourceMatchTermination extends LatchingCondition {
  protected readonly kind = 'SourceMatchTermination';
  readonly sources: readonly string[];

  constructor(sources: readonly string[]) {
    super();
    this.sources = requireTextList(this.kind, 'sources', sources);
  }

  override clone(): SourceMatchTermination {
    return new SourceMatchTermination(this.sources);
  }

  protected match(messages: readonly AgentMessage[]): string | null {
    const hit = messages.find((m) => this.sources.includes(m.source));
    return hit === undefined ? null : `'${hit.source}' answered`;
  }

  override toJSON(): TerminationConfig {
    return { type: this.kind, sources: [...this.sources] };
  }
}

/** Fires on a `StopMessage` in the delta. */
export class StopMessageTermination extends LatchingCondition {
  protected readonly kind = 'StopMessageTermination';

  override clone(): StopMessageTermination {
    return new StopMessageTermination();
  }

  protected match(messages: readonly AgentMessage[]): string | null {
    return messages.some((m) => m.type === 'StopMessage') ? 'Stop message received' : null;
  }

  override toJSON(): TerminationConfig {
    return { type: this.kind };
  }
}

/**
 * Fires on a `TextMessage` (from `source` if given): stops an agent that answers in plain text
 * instead of handing off.
 */
export class TextMessageTermination extends LatchingCondition {
  protected readonly kind = 'TextMessageTermination';
  readonly source: string | undefined;

  constructor(source?: string) {
    super();
    this.source = source === undefined ? undefined : requireText(this.kind, 'source', source);
  }

  override clone(): TextMessageTermination {
    return new TextMessageTermination(this.source);
  }

  protected match(messages: readonly AgentMessage[]): string | null {
    const hit = messages.find(
      (m) => m.type === 'TextMessage' && (this.source === undefined || m.source === this.source),
    );
    return hit === undefined ? null : `Text message received from '${hit.source}'`;
  }

  override toJSON(): TerminationConfig {
    return this.source === undefined
      ? { type: this.kind }
      : { type: this.kind, source: this.source };
  }
}

/** Fires on a `HandoffMessage` to `target` (e.g. `"user"`, to pause a swarm for a human). */
export class HandoffTermination extends LatchingCondition {
  protected readonly kind = 'HandoffTermination';
  readonly target: string;

  constructor(target: string) {
    super();
    this.target = requireText(this.kind, 'target', target);
  }

  override clone(): HandoffTermination {
    return new HandoffTermination(this.target);
  }

  protected match(messages: readonly AgentMessage[]): string | null {
    const hit = messages.find((m) => m.type === 'HandoffMessage' && m.target === this.target);
    return hit === undefined ? null : `Handoff to ${this.target} from ${hit.source} detected.`;
  }

  override toJSON(): TerminationConfig {
    return { type: this.kind, target: this.target };
  }
}

/** Fires when a `ToolCallExecutionEvent` holds a result of the tool `functionName`. */
export class FunctionCallTermination extends LatchingCondition {
  protected readonly kind = 'FunctionCallTermination';
  readonly functionName: string;

  constructor(functionName: string) {
    super();
    this.functionName = requireText(this.kind, 'functionName', functionName);
  }

  override clone(): FunctionCallTermination {
    return new FunctionCallTermination(this.functionName);
  }

  protected match(messages: readonly AgentMessage[]): string | null {
    const hit = messages.some(
      (m) =>
        m.type === 'ToolCallExecutionEvent' && m.content.some((r) => r.name === this.functionName),
    );
    return hit ? `Function '${this.functionName}' was executed.` : null;
  }

  override toJSON(): TerminationConfig {
    return { type: this.kind, functionName: this.functionName };
  }
}

import type { AgentMessage } from '../messages/message.js';
import { LatchingCondition } from '../termination/latching-condition.js';

// A whole message that says goodbye, optionally after thanks: "bye", "Thanks, goodbye!", "see you".
const FAREWELL =
  /^(?:(?:ok(?:ay)?|thanks?(?: you)?(?: so much)?|great|perfect|cheers)[\s,.!]*)*(?:good ?bye|bye(?:[\s-]?bye)?|see (?:you|ya)(?: later)?|farewell|cheerio|that'?s all|that is all)(?:[\s,.!]*(?:for now|then|thanks?(?: you)?|cheers))*[\s.!]*$/i;

/** Whether `text`, as a whole, is a farewell; "say goodbye to your service" inside a request is not. */
export function isFarewell(text: string): boolean {
  return FAREWELL.test(text.trim());
}

/**
 * The demo's end: fires on a user's `TextMessage` that is a farewell as a whole ("bye", "thanks,
 * goodbye!"), not on "bye" inside a sentence.
 * The demo's own condition: like `FunctionalTermination`, it has no JSON form.
 */
export class FarewellTermination extends LatchingCondition {
  protected readonly kind = 'FarewellTermination';

  override clone(): FarewellTermination {
    return new FarewellTermination();
  }

  protected match(messages: readonly AgentMessage[]): string | null {
    const farewell = messages.find(
      (m) => m.type === 'TextMessage' && m.source === 'user' && isFarewell(m.content),
    );
    return farewell === undefined ? null : 'The user said goodbye';
  }
}

import { describe, expect, it } from 'vitest';

import { textMessage } from '../messages/message-factories.js';
import { FarewellTermination, isFarewell } from './demo-farewell.js';

describe('isFarewell()', () => {
  it('accepts a message that is a goodbye as a whole', () => {
    const farewells = ['bye', 'Bye!', 'goodbye', 'Good bye.', 'thanks, bye', 'Thanks, goodbye!'];
    const more = ['ok bye', 'bye bye', 'see you', 'That is all, thanks', 'cheers, bye for now'];
    expect([...farewells, ...more].filter((text) => !isFarewell(text))).toEqual([]);
  });

  it('refuses "bye" inside a request', () => {
    const requests = [
      'I want to cancel my account and say goodbye to your service',
      'bye the way, my invoice is wrong',
      'goodbye to my money: I was charged twice',
      'my internet says bye every hour',
      'Byers Street office, is it open?',
      '',
    ];
    expect(requests.filter((text) => isFarewell(text))).toEqual([]);
  });
});

describe('FarewellTermination', () => {
  it("fires on the user's goodbye only, and says so", async () => {
    const condition = new FarewellTermination();
    expect(await condition.check([textMessage({ source: 'billing', content: 'bye' })])).toBeNull();
    expect(
      await condition.check([
        textMessage({ source: 'user', content: 'I want to say goodbye to your service' }),
      ]),
    ).toBeNull();
    const stop = await condition.check([textMessage({ source: 'user', content: 'Thanks, bye!' })]);
    expect([stop?.source, stop?.content]).toEqual(['FarewellTermination', 'The user said goodbye']);
    expect(condition.terminated).toBe(true);
  });
});

describe('FarewellTermination.clone()', () => {
  it('gives a fresh condition, so each demo session has its own', async () => {
    const condition = new FarewellTermination();
    await condition.check([textMessage({ source: 'user', content: 'bye' })]);
    const copy = condition.clone();
    expect([condition.terminated, copy.terminated, copy instanceof FarewellTermination]).toEqual([
      true,
      false,
      true,
    ]);
  });
});

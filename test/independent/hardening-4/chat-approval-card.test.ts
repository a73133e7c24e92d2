// Issue 43, item 16: the chat page's approval card showed bidi control characters raw, so an
// amount could read reordered ("5000" as "0005"). It shows every control character as an escape,
// as `baton run`'s approval prompt does (`visibleControls`). The page's transcript script runs
// here in a VM over a small document that records the text the browser would show.
import { runInNewContext } from 'node:vm';

import { describe, expect, it } from 'vitest';

import { CHAT_RENDER_SCRIPT } from '../../../src/serve/chat-page-render-script.js';
import { CONTROLS_SOURCE, visibleControls } from '../../../src/visible-controls.js';

/** A document with just what the transcript script uses; an element's text is its children's. */
class Node {
  readonly children: (Node | string)[] = [];
  readonly attributes: Record<string, string> = {};
  className = '';
  type = '';
  readonly tag: string;
  constructor(tag: string) {
    this.tag = tag;
  }
  appendChild(child: Node | { text: string }) {
    this.children.push(child instanceof Node ? child : child.text);
  }
  setAttribute(name: string, value: string) {
    this.attributes[name] = value;
  }
  addEventListener() {}
  querySelectorAll() {
    return this.children.filter((c): c is Node => c instanceof Node && c.tag === 'button');
  }
  get textContent(): string {
    return this.children.map((c) => (typeof c === 'string' ? c : c.textContent)).join('');
  }
}
const document = {
  createElement: (tag: string) => new Node(tag),
  createTextNode: (text: string) => ({ text }),
};

/** The transcript script's approval card, as the page would build it. */
function approvalCard(message: unknown): Node {
  const card = runInNewContext(
    `(function () { var ui = { calls: {} }; function decide() {} ${CHAT_RENDER_SCRIPT}
      return approvalCard; })()`,
    { document },
  ) as (m: unknown) => Node;
  return card(message);
}

const RLO = '\u202e';
const call = {
  id: 'c1',
  name: `refund${RLO}`,
  arguments: JSON.stringify({ amount: `${RLO}0005`, note: 'line\nbreak\u2066x\u2069\u001b[2J' }),
};

describe("the chat page's approval card", () => {
  it('shows bidi and other control characters as escapes, as `baton run` does', () => {
    const card = approvalCard({
      type: 'ToolApprovalRequestEvent',
      source: `billing${RLO}`,
      content: [call],
    });
    const text = card.textContent;
    expect(text).not.toMatch(new RegExp(CONTROLS_SOURCE));
    const args = JSON.stringify(JSON.parse(call.arguments));
    expect(text).toBe(
      `${visibleControls(`billing${RLO}`)} asks for your approval` +
        `${visibleControls(call.name)}(${visibleControls(args)})ApproveReject`,
    );
    expect(text).toContain('"amount":"\\u202e0005"');
    expect(text).toContain('\\u2066x\\u2069\\u001b[2J');
  });
});

// The request rules the Anthropic Messages API (POST /v1/messages) enforces, as a list of
// problems (empty when the request is valid). Wording follows Anthropic's own errors.

const TOOL_NAME = /^[a-zA-Z0-9_-]{1,64}$/;
const REQUEST_KEYS = new Set([
  'model',
  'max_tokens',
  'messages',
  'system',
  'tools',
  'tool_choice',
  'stream',
  'temperature',
  'top_p',
  'top_k',
  'stop_sequences',
  'metadata',
  'thinking',
  'output_format',
  'output_config',
  'service_tier',
]);

type Json = Record<string, unknown>;
const isObject = (v: unknown): v is Json =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

/** Every rule the request breaks. */
export function messagesRequestProblems(body: unknown): string[] {
  if (!isObject(body)) return ['The request body must be a JSON object.'];
  const problems: string[] = [];
  for (const key of Object.keys(body)) {
    if (!REQUEST_KEYS.has(key)) problems.push(`${key}: Extra inputs are not permitted`);
  }
  if (typeof body.model !== 'string' || body.model === '') problems.push('model: Field required');
  if (!Number.isInteger(body.max_tokens) || (body.max_tokens as number) < 1) {
    problems.push('max_tokens: Field required');
  }
  problems.push(...systemProblems(body.system));
  const tools = toolNames(body.tools, problems);
  problems.push(...messageProblems(body.messages, tools !== undefined));
  return problems;
}

function systemProblems(system: unknown): string[] {
  if (system === undefined || typeof system === 'string') return [];
  if (!Array.isArray(system)) return ['system: Input should be a valid string or list'];
  return system.some((b) => !isObject(b) || b.type !== 'text' || typeof b.text !== 'string')
    ? ['system: every block must be a text block']
    : [];
}

function toolNames(tools: unknown, problems: string[]): Set<string> | undefined {
  if (tools === undefined) return undefined;
  if (!Array.isArray(tools)) {
    problems.push('tools: Input should be a valid list');
    return undefined;
  }
  const names = new Set<string>();
  tools.forEach((t: unknown, i) => {
    if (!isObject(t) || typeof t.name !== 'string' || !TOOL_NAME.test(t.name)) {
      problems.push(`tools.${i}.name: String should match pattern '^[a-zA-Z0-9_-]{1,64}$'`);
      return;
    }
    if (names.has(t.name)) problems.push(`tools: Tool names must be unique (${t.name}).`);
    names.add(t.name);
    if (!isObject(t.input_schema) || t.input_schema.type !== 'object') {
      problems.push(`tools.${i}.input_schema: type must be 'object'`);
    }
  });
  return names;
}

/**
 * Roles: only user and assistant, alternating, starting and ending with user (no prefill). Every
 * `tool_use` is answered by exactly one `tool_result` at the start of the next user turn, and
 * every `tool_result` answers a `tool_use` of the assistant turn right before it. Requests with
 * tool blocks must define tools. Messages carry only `role` and `content`; text is never empty.
 */
function messageProblems(messages: unknown, hasTools: boolean): string[] {
  if (!Array.isArray(messages) || messages.length === 0) {
    return ['messages: at least one message is required'];
  }
  const problems: string[] = [];
  let pending: string[] = [];
  let toolBlocks = false;
  messages.forEach((m: unknown, i) => {
    const at = `messages.${i}`;
    if (!isObject(m) || (m.role !== 'user' && m.role !== 'assistant')) {
      problems.push(`${at}.role: Input should be 'user' or 'assistant'`);
      return;
    }
    for (const key of Object.keys(m)) {
      if (key !== 'role' && key !== 'content') {
        problems.push(`${at}.${key}: Extra inputs are not permitted`);
      }
    }
    if (i === 0 && m.role !== 'user')
      problems.push('messages: first message must use the "user" role');
    const previous = messages[i - 1] as Json | undefined;
    if (previous !== undefined && previous.role === m.role) {
      problems.push(`${at}: roles must alternate between "user" and "assistant"`);
    }
    const blocks = typeof m.content === 'string' ? [{ type: 'text', text: m.content }] : m.content;
    if (!Array.isArray(blocks) || blocks.length === 0) {
      problems.push(`${at}.content: must be a non-empty string or list`);
      return;
    }
    const answered: string[] = [];
    let seenOther = false;
    blocks.forEach((b: unknown, j) => {
      const where = `${at}.content.${j}`;
      if (!isObject(b)) return problems.push(`${where}: must be an object`);
      if (b.type === 'text') {
        if (typeof b.text !== 'string' || b.text === '') {
          problems.push(`${where}: text content blocks must be non-empty`);
        }
        seenOther = true;
      } else if (b.type === 'tool_use' && m.role === 'assistant') {
        toolBlocks = true;
        if (typeof b.id !== 'string' || typeof b.name !== 'string' || !isObject(b.input)) {
          problems.push(`${where}: tool_use needs an id, a name and an object input`);
        } else {
          answered.push(b.id);
        }
      } else if (b.type === 'tool_result' && m.role === 'user') {
        toolBlocks = true;
        if (seenOther) problems.push(`${where}: tool_result blocks must come first`);
        const index = pending.indexOf(b.tool_use_id as string);
        if (index === -1) {
          problems.push(
            `${where}: unexpected \`tool_use_id\` found in \`tool_result\` blocks: ` +
              `${String(b.tool_use_id)}. Each \`tool_result\` block must have a corresponding ` +
              '`tool_use` block in the previous message.',
          );
        } else {
          pending.splice(index, 1);
        }
      } else {
        problems.push(`${where}.type: '${String(b.type)}' is not allowed in a ${m.role} message`);
      }
    });
    if (m.role === 'user' && pending.length > 0) {
      problems.push(
        `${at}: \`tool_use\` ids were found without \`tool_result\` blocks immediately after: ` +
          `${pending.join(', ')}`,
      );
    }
    pending = m.role === 'assistant' ? answered : [];
  });
  const last = messages[messages.length - 1] as Json | undefined;
  if (last?.role !== 'user') {
    problems.push(
      'This model does not support assistant message prefill. The conversation must end with a user message.',
    );
  }
  if (toolBlocks && !hasTools) {
    problems.push('Requests which include `tool_use` or `tool_result` blocks must define tools.');
  }
  return problems;
}

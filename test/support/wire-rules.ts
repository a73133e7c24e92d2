// The request rules OpenAI-compatible providers enforce on POST /v1/chat/completions, as a list
// of problems (empty when the request is valid). Wording follows the providers' own errors.

const WIRE_NAME = /^[a-zA-Z0-9_-]{1,64}$/;
const ROLES = new Set(['system', 'developer', 'user', 'assistant', 'tool']);
const JSON_TYPES = new Set(['object', 'array', 'string', 'number', 'integer', 'boolean', 'null']);
const REQUEST_KEYS = new Set([
  'model',
  'messages',
  'tools',
  'tool_choice',
  'parallel_tool_calls',
  'response_format',
  'stream',
  'stream_options',
  'temperature',
  'top_p',
  'max_tokens',
  'max_completion_tokens',
  'n',
  'stop',
  'seed',
  'user',
  'metadata',
  'store',
  'logprobs',
  'top_logprobs',
  'presence_penalty',
  'frequency_penalty',
  'logit_bias',
  'reasoning_effort',
  'service_tier',
  'prompt_cache_key',
  'safety_identifier',
  'verbosity',
]);
const MESSAGE_KEYS: Record<string, ReadonlySet<string>> = {
  system: new Set(['role', 'content', 'name']),
  developer: new Set(['role', 'content', 'name']),
  user: new Set(['role', 'content', 'name']),
  assistant: new Set(['role', 'content', 'name', 'tool_calls', 'refusal']),
  tool: new Set(['role', 'content', 'tool_call_id']),
};

type Json = Record<string, unknown>;
const isObject = (v: unknown): v is Json =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

/** Every rule the request breaks. */
export function chatRequestProblems(body: unknown): string[] {
  const problems: string[] = [];
  if (!isObject(body)) return ['The request body must be a JSON object.'];
  for (const key of Object.keys(body)) {
    if (!REQUEST_KEYS.has(key)) problems.push(`Unrecognized request argument supplied: ${key}`);
  }
  if (typeof body.model !== 'string' || body.model === '') problems.push("'model' is required.");
  problems.push(...messageProblems(body.messages));
  const hasTools = body.tools !== undefined;
  if (hasTools) problems.push(...toolProblems(body.tools));
  for (const key of ['tool_choice', 'parallel_tool_calls']) {
    if (body[key] !== undefined && !hasTools) {
      problems.push(`'${key}' is only allowed when 'tools' are specified.`);
    }
  }
  if (body.stream !== undefined && typeof body.stream !== 'boolean') {
    problems.push("'stream' must be a boolean.");
  }
  if (body.stream_options !== undefined) {
    if (body.stream !== true) {
      problems.push("The 'stream_options' parameter is only allowed when 'stream' is enabled.");
    } else if (
      !isObject(body.stream_options) ||
      typeof body.stream_options.include_usage !== 'boolean'
    ) {
      problems.push("'stream_options.include_usage' must be a boolean.");
    }
  }
  if (body.response_format !== undefined) problems.push(...formatProblems(body.response_format));
  return problems;
}

function messageProblems(messages: unknown): string[] {
  if (!Array.isArray(messages) || messages.length === 0) {
    return ["'messages' must be a non-empty array."];
  }
  const problems: string[] = [];
  const seenIds = new Set<string>();
  let pending = new Map<string, number>();
  const unanswered = (at: string) => {
    const ids = [...pending.keys()].join(', ');
    problems.push(
      `An assistant message with 'tool_calls' must be followed by tool messages responding to ` +
        `each 'tool_call_id'. The following tool_call_ids did not have response messages: ${ids} ${at}.`,
    );
  };
  messages.forEach((m: unknown, i) => {
    const where = `messages[${i}]`;
    if (!isObject(m) || typeof m.role !== 'string' || !ROLES.has(m.role)) {
      problems.push(`Invalid value for '${where}.role'.`);
      return;
    }
    for (const key of Object.keys(m)) {
      if (!MESSAGE_KEYS[m.role]?.has(key)) problems.push(`Unrecognized field '${where}.${key}'.`);
    }
    if (m.name !== undefined && (typeof m.name !== 'string' || !WIRE_NAME.test(m.name))) {
      problems.push(`Invalid '${where}.name': string does not match pattern '^[a-zA-Z0-9_-]+$'.`);
    }
    if (m.role === 'tool') {
      const id = m.tool_call_id;
      if (typeof id !== 'string' || !pending.delete(id)) {
        problems.push(
          `Invalid parameter: ${where} with role 'tool' must be a response to a preceding ` +
            `message with 'tool_calls' (tool_call_id ${JSON.stringify(id)}).`,
        );
      }
      if (!isText(m.content)) problems.push(`'${where}.content' must be a string.`);
      return;
    }
    if (pending.size > 0) unanswered(`before ${where}`);
    pending = new Map();
    if (m.role !== 'assistant') {
      if (!isText(m.content)) problems.push(`'${where}.content' must be a string.`);
      return;
    }
    const calls = m.tool_calls;
    if (calls === undefined) {
      if (typeof m.content !== 'string') {
        problems.push(`Invalid '${where}': an assistant message needs 'content' or 'tool_calls'.`);
      }
      return;
    }
    if (m.content !== null && m.content !== undefined && typeof m.content !== 'string') {
      problems.push(`'${where}.content' must be a string or null.`);
    }
    if (!Array.isArray(calls) || calls.length === 0) {
      problems.push(`'${where}.tool_calls' must be a non-empty array.`);
      return;
    }
    calls.forEach((c: unknown, j) => {
      const at = `${where}.tool_calls[${j}]`;
      if (!isObject(c) || typeof c.id !== 'string' || c.id === '' || c.type !== 'function') {
        problems.push(`Invalid '${at}': needs a non-empty 'id' and type 'function'.`);
        return;
      }
      const fn = c.function;
      if (!isObject(fn) || typeof fn.name !== 'string' || !WIRE_NAME.test(fn.name)) {
        problems.push(
          `Invalid '${at}.function.name': string does not match pattern '^[a-zA-Z0-9_-]{1,64}$'.`,
        );
      }
      if (!isObject(fn) || typeof fn.arguments !== 'string') {
        problems.push(`'${at}.function.arguments' must be a string.`);
      }
      if (seenIds.has(c.id)) problems.push(`Duplicate tool_call_id '${c.id}' in '${at}'.`);
      seenIds.add(c.id);
      pending.set(c.id, i);
    });
  });
  if (pending.size > 0) unanswered('at the end of the messages');
  return problems;
}

function isText(content: unknown): boolean {
  if (typeof content === 'string') return true;
  return (
    Array.isArray(content) &&
    content.every((p) => isObject(p) && p.type === 'text' && typeof p.text === 'string')
  );
}

function toolProblems(tools: unknown): string[] {
  if (!Array.isArray(tools) || tools.length === 0) {
    return ["Invalid 'tools': empty array. Expected an array with minimum length 1."];
  }
  const problems: string[] = [];
  const names = new Set<string>();
  tools.forEach((t: unknown, i) => {
    const at = `tools[${i}]`;
    if (!isObject(t) || t.type !== 'function' || !isObject(t.function)) {
      problems.push(`Invalid '${at}': expected {type: 'function', function: {...}}.`);
      return;
    }
    const fn = t.function;
    if (typeof fn.name !== 'string' || !WIRE_NAME.test(fn.name)) {
      problems.push(
        `Invalid '${at}.function.name': string does not match pattern '^[a-zA-Z0-9_-]{1,64}$'.`,
      );
    } else if (names.has(fn.name)) {
      problems.push(`Duplicate function name '${fn.name}' in 'tools'.`);
    } else {
      names.add(fn.name);
    }
    if (fn.description !== undefined && typeof fn.description !== 'string') {
      problems.push(`'${at}.function.description' must be a string.`);
    }
    if (fn.parameters !== undefined) {
      problems.push(
        ...schemaProblems(fn.parameters, `${at}.function.parameters`, fn.strict === true),
      );
    }
  });
  return problems;
}

function formatProblems(format: unknown): string[] {
  if (!isObject(format)) return ["'response_format' must be an object."];
  if (format.type === 'text' || format.type === 'json_object') return [];
  if (format.type !== 'json_schema' || !isObject(format.json_schema)) {
    return ["Invalid 'response_format.type'."];
  }
  const spec = format.json_schema;
  const problems: string[] = [];
  if (typeof spec.name !== 'string' || !WIRE_NAME.test(spec.name)) {
    problems.push("Invalid 'response_format.json_schema.name'.");
  }
  problems.push(
    ...schemaProblems(spec.schema, 'response_format.json_schema.schema', spec.strict === true),
  );
  return problems;
}

function schemaProblems(schema: unknown, at: string, strict: boolean): string[] {
  if (!isObject(schema) || schema.type !== 'object') {
    return [`Invalid schema for '${at}': schema must be a JSON Schema of 'type: "object"'.`];
  }
  const problems: string[] = [];
  walkSchema(schema, at, problems);
  if (strict) {
    const keys = Object.keys(isObject(schema.properties) ? schema.properties : {});
    const required = Array.isArray(schema.required) ? schema.required : [];
    if (schema.additionalProperties !== false) {
      problems.push(
        `Invalid schema for '${at}': 'additionalProperties' is required to be false in strict mode.`,
      );
    }
    if (keys.some((k) => !required.includes(k))) {
      problems.push(
        `Invalid schema for '${at}': in strict mode 'required' must list every property.`,
      );
    }
  }
  return problems;
}

function walkSchema(schema: Json, at: string, problems: string[]): void {
  const types = Array.isArray(schema.type)
    ? schema.type
    : schema.type === undefined
      ? []
      : [schema.type];
  for (const t of types) {
    if (!JSON_TYPES.has(t as string))
      problems.push(`Invalid schema for '${at}': unknown type ${JSON.stringify(t)}.`);
  }
  if (schema.properties !== undefined) {
    if (!isObject(schema.properties)) {
      problems.push(`Invalid schema for '${at}': 'properties' must be an object.`);
      return;
    }
    const required = schema.required ?? [];
    if (!Array.isArray(required) || required.some((r) => !(r in (schema.properties as Json)))) {
      problems.push(`Invalid schema for '${at}': 'required' names a property that is not defined.`);
    }
    for (const [key, sub] of Object.entries(schema.properties)) {
      if (isObject(sub)) walkSchema(sub, `${at}.properties.${key}`, problems);
      else problems.push(`Invalid schema for '${at}.properties.${key}': must be an object.`);
    }
  }
  if (isObject(schema.items)) walkSchema(schema.items, `${at}.items`, problems);
}

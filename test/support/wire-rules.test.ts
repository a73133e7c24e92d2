import { describe, expect, it } from 'vitest';

import { chatRequestProblems } from './wire-rules.js';

const fn = (id: string, name = 'f') => ({
  id,
  type: 'function',
  function: { name, arguments: '{}' },
});
const request = (messages: unknown[], extra: Record<string, unknown> = {}) => ({
  model: 'm',
  messages,
  ...extra,
});
const tool = (name: string, parameters: unknown = { type: 'object', properties: {} }) => ({
  type: 'function',
  function: { name, description: 'd', parameters },
});

describe('chatRequestProblems()', () => {
  it('accepts a valid conversation with answered tool calls', () => {
    const body = request(
      [
        { role: 'system', content: 's' },
        { role: 'user', content: 'u', name: 'alice' },
        { role: 'assistant', content: null, tool_calls: [fn('a'), fn('b')] },
        { role: 'tool', tool_call_id: 'b', content: '1' },
        { role: 'tool', tool_call_id: 'a', content: '2' },
        { role: 'assistant', content: 'done', name: 'bot' },
      ],
      {
        tools: [tool('f')],
        parallel_tool_calls: true,
        stream: true,
        stream_options: { include_usage: true },
      },
    );
    expect(chatRequestProblems(body)).toEqual([]);
  });

  it('finds unanswered calls, orphan and doubled results, and duplicate ids', () => {
    const body = request([
      { role: 'assistant', content: null, tool_calls: [fn('a'), fn('b')] },
      { role: 'tool', tool_call_id: 'a', content: '1' },
      { role: 'user', content: 'interrupts' },
      { role: 'tool', tool_call_id: 'a', content: 'again' },
      { role: 'assistant', content: null, tool_calls: [fn('a')] },
    ]);
    expect(chatRequestProblems(body)).toEqual([
      "An assistant message with 'tool_calls' must be followed by tool messages responding to each 'tool_call_id'. The following tool_call_ids did not have response messages: b before messages[2].",
      "Invalid parameter: messages[3] with role 'tool' must be a response to a preceding message with 'tool_calls' (tool_call_id \"a\").",
      "Duplicate tool_call_id 'a' in 'messages[4].tool_calls[0]'.",
      "An assistant message with 'tool_calls' must be followed by tool messages responding to each 'tool_call_id'. The following tool_call_ids did not have response messages: a at the end of the messages.",
    ]);
  });

  it('finds bad roles, fields, names and contents', () => {
    const body = request([
      { role: 'robot', content: 'x' },
      { role: 'assistant', content: null, toolCalls: [] },
      { role: 'user', content: 'x', name: 'Team Lead' },
      { role: 'assistant', content: null, tool_calls: [fn('a', 'bad name')] },
      { role: 'tool', tool_call_id: 'a', content: null },
    ]);
    expect(chatRequestProblems(body)).toEqual([
      "Invalid value for 'messages[0].role'.",
      "Unrecognized field 'messages[1].toolCalls'.",
      "Invalid 'messages[1]': an assistant message needs 'content' or 'tool_calls'.",
      "Invalid 'messages[2].name': string does not match pattern '^[a-zA-Z0-9_-]+$'.",
      "Invalid 'messages[3].tool_calls[0].function.name': string does not match pattern '^[a-zA-Z0-9_-]{1,64}$'.",
      "'messages[4].content' must be a string.",
    ]);
  });

  it('finds bad tools, schemas and request options', () => {
    const body = request([{ role: 'user', content: 'x' }], {
      tools: [
        tool('f'),
        tool('f'),
        tool('g', { type: 'string' }),
        tool('h', { type: 'object', properties: { a: { type: 'text' } }, required: ['b'] }),
      ],
      temprature: 1,
      stream_options: { include_usage: true },
    });
    expect(chatRequestProblems(body)).toEqual([
      'Unrecognized request argument supplied: temprature',
      "Duplicate function name 'f' in 'tools'.",
      "Invalid schema for 'tools[2].function.parameters': schema must be a JSON Schema of 'type: \"object\"'.",
      "Invalid schema for 'tools[3].function.parameters': 'required' names a property that is not defined.",
      'Invalid schema for \'tools[3].function.parameters.properties.a\': unknown type "text".',
      "The 'stream_options' parameter is only allowed when 'stream' is enabled.",
    ]);
    expect(chatRequestProblems(request([], { tools: [], parallel_tool_calls: false }))).toEqual([
      "'messages' must be a non-empty array.",
      "Invalid 'tools': empty array. Expected an array with minimum length 1.",
    ]);
    expect(
      chatRequestProblems(request([{ role: 'user', content: 'x' }], { tool_choice: 'auto' })),
    ).toEqual(["'tool_choice' is only allowed when 'tools' are specified."]);
  });

  it('checks structured output formats, strictly when asked', () => {
    const schema = { type: 'object', properties: { a: { type: 'string' } } };
    const format = (json_schema: unknown) =>
      chatRequestProblems(
        request([{ role: 'user', content: 'x' }], {
          response_format: { type: 'json_schema', json_schema },
        }),
      );
    expect(format({ name: 'output', schema })).toEqual([]);
    expect(format({ name: 'my output', schema, strict: true })).toEqual([
      "Invalid 'response_format.json_schema.name'.",
      "Invalid schema for 'response_format.json_schema.schema': 'additionalProperties' is required to be false in strict mode.",
      "Invalid schema for 'response_format.json_schema.schema': in strict mode 'required' must list every property.",
    ]);
  });
});

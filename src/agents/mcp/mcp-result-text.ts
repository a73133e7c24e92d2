import { isRecord } from '../../unknown-value.js';

/**
 * A tool result as a server really sent it. Its shape is not checked against MCP's schema before
 * it gets here (see `McpConnection.callTool`), so every field is read with care.
 */
export interface RawToolResult {
  readonly content?: unknown;
  readonly structuredContent?: unknown;
  readonly isError?: unknown;
}

type Fields = Readonly<Record<string, unknown>>;

const text = (value: unknown): string | undefined =>
  typeof value === 'string' ? value : undefined;

const fieldsOf = (value: unknown): Fields => (isRecord(value) ? value : {});

/** `[type detail…]`, leaving out the details the server did not send as strings. */
const placeholder = (type: string, ...details: unknown[]): string =>
  `[${[type, ...details.map(text)].filter((part) => part !== undefined && part !== '').join(' ')}]`;

/**
 * A content block as text for the model: text as it is, an embedded text resource as its text,
 * and anything else as a short placeholder (`[image image/png]`, `[audio audio/wav]`,
 * `[resource_link file:///a.txt]`, `[resource file:///b.bin application/octet-stream]`), so a
 * model never receives base64 data as if it were words. A block of a type MCP does not define is
 * `[<type> content]`; one without a type, or a block with fields of the wrong kind, is named by
 * what it claims to be (`[unknown content]`, `[text content]`).
 */
function blockText(block: unknown): string {
  const fields = fieldsOf(block);
  const type = text(fields.type);
  switch (type) {
    case 'text':
      return text(fields.text) ?? '[text content]';
    case 'image':
    case 'audio':
      return placeholder(type, fields.mimeType);
    case 'resource_link':
      return placeholder(type, fields.uri);
    case 'resource': {
      const resource = fieldsOf(fields.resource);
      return text(resource.text) ?? placeholder(type, resource.uri, resource.mimeType);
    }
    default:
      return `[${type === undefined || type === '' ? 'unknown' : type} content]`;
  }
}

/**
 * The text of a tool result: its content blocks one per line; with no content, its structured
 * content as JSON (older servers send only that).
 */
export function resultText(result: RawToolResult): string {
  const content: unknown[] = Array.isArray(result.content) ? result.content : [];
  if (content.length === 0 && result.structuredContent !== undefined) {
    return JSON.stringify(result.structuredContent);
  }
  return content.map(blockText).join('\n');
}

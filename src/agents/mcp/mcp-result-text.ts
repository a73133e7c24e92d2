import type { CallToolResult } from './mcp-connection.js';

type ContentBlock = CallToolResult['content'][number];

/**
 * A content block as text for the model: text as it is, an embedded text resource as its text,
 * and anything else as a short placeholder (`[image image/png]`, `[audio audio/wav]`,
 * `[resource_link file:///a.txt]`, `[resource file:///b.bin application/octet-stream]`), so a
 * model never receives base64 data as if it were words.
 */
function blockText(block: ContentBlock): string {
  switch (block.type) {
    case 'text':
      return block.text;
    case 'image':
    case 'audio':
      return `[${block.type} ${block.mimeType}]`;
    case 'resource_link':
      return `[resource_link ${block.uri}]`;
    case 'resource': {
      const { resource } = block;
      if ('text' in resource && typeof resource.text === 'string') return resource.text;
      return `[resource ${[resource.uri, resource.mimeType].filter(Boolean).join(' ')}]`;
    }
    default:
      return `[${String((block as { type?: unknown }).type)}]`;
  }
}

/**
 * The text of a tool result: its content blocks one per line; with no content, its structured
 * content as JSON (older servers send only that).
 */
export function resultText(result: CallToolResult): string {
  const content = result.content ?? [];
  if (content.length === 0 && result.structuredContent !== undefined) {
    return JSON.stringify(result.structuredContent);
  }
  return content.map(blockText).join('\n');
}

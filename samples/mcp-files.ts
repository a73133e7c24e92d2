// A records desk whose archivist reads files through an MCP server: the reference filesystem
// server (@modelcontextprotocol/server-filesystem, a devDependency of this repository), started
// with this Node and allowed to see samples/files/ only. Triage hands questions about the team's
// documents to the archivist, who lists the folder, reads the file the question is about and
// quotes it. The models are deterministic functions (ScriptedChatClient with a step function),
// so any conversation works offline and always the same; the files are real.
//
// Run it: npx tsx samples/mcp-files.ts     or talk to it: npx baton run samples/mcp-files.ts
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

import {
  Agent,
  Console,
  HandoffBuilder,
  type LLMMessage,
  MaxMessageTermination,
  mcpTools,
  type ModelRequest,
  ScriptedChatClient,
  type ScriptedStep,
  scriptedText,
  scriptedToolCall,
  speakerOf,
  TextMentionTermination,
} from '../src/index.js';

/** The folder the server may read. */
const FOLDER = join(dirname(fileURLToPath(import.meta.url)), 'files');

/** The server's entry script, from its package's `bin`: no npx, nothing downloaded. */
function filesystemServer(): string {
  const manifest = createRequire(import.meta.url).resolve(
    '@modelcontextprotocol/server-filesystem/package.json',
  );
  const { bin } = JSON.parse(readFileSync(manifest, 'utf8')) as { bin: Record<string, string> };
  return join(dirname(manifest), Object.values(bin)[0] ?? 'dist/index.js');
}

/** Two of the server's tools, as `files_list_directory` and `files_read_text_file`. */
export const files = await mcpTools(
  { command: process.execPath, args: [filesystemServer(), FOLDER] },
  { prefix: 'files', include: ['list_directory', 'read_text_file'] },
);

// Other agents' turns reach a model as user messages too: `speakerOf` tells the user's apart.
const lastUser = (messages: readonly LLMMessage[]) =>
  messages.findLast((m) => speakerOf(m) === 'user')?.content ?? '';

/** The last tool result and the name of the call it answers, if the request ends with one. */
function lastResult(
  messages: readonly LLMMessage[],
): { tool: string; content: string } | undefined {
  const last = messages.at(-1);
  if (last?.role !== 'tool') return undefined;
  const asked = messages.findLast((m) => m.role === 'assistant' && m.toolCalls !== undefined);
  const calls = asked?.role === 'assistant' ? (asked.toolCalls ?? []) : [];
  const tool = calls.find((c) => c.id === last.toolCallId)?.name ?? '';
  return { tool, content: last.content };
}

/** The listed file whose name shares a word (of four letters or more) with the question. */
function fileAskedFor(listing: string, question: string): string | undefined {
  const names = [...listing.matchAll(/^\[FILE\] (.+)$/gm)].map((m) => m[1] ?? '');
  const words = question.toLowerCase().match(/[a-z]{4,}/g) ?? [];
  return names.find((name) => words.some((word) => name.toLowerCase().includes(word)));
}

function archivistStep(request: ModelRequest): ScriptedStep {
  const result = lastResult(request.messages);
  if (result === undefined) return scriptedToolCall('files_list_directory', { path: '.' });
  if (result.content.startsWith('Tool "')) {
    return scriptedText(`I could not get to the files: ${result.content}`);
  }
  if (result.tool === 'files_read_text_file') {
    return scriptedText(`Here it is:\n${result.content.trim()}`);
  }
  const name = fileAskedFor(result.content, lastUser(request.messages));
  if (name === undefined) {
    const names = [...result.content.matchAll(/^\[FILE\] (.+)$/gm)].map((m) => m[1]);
    return scriptedText(`I have these files: ${names.join(', ')}. Which one do you need?`);
  }
  return scriptedToolCall('files_read_text_file', { path: name });
}

function triageStep(request: ModelRequest): ScriptedStep {
  if (/file|doc|note|checklist|call|release|read/i.test(lastUser(request.messages))) {
    return scriptedToolCall('handoff_to_archivist');
  }
  return scriptedText('Hello! Ask me about the team documents: the release checklist, on call.');
}

const triage = new Agent({
  name: 'triage',
  description: 'Greets and sends questions about documents to the archivist.',
  client: new ScriptedChatClient(triageStep),
});
const archivist = new Agent({
  name: 'archivist',
  description: "Reads the team's documents.",
  instructions: 'List the folder, read the file the question is about, and quote it.',
  tools: files.tools,
  maxToolIterations: 3,
  client: new ScriptedChatClient(archivistStep),
});

/** The desk: the session ends when the user says "bye" or after 40 messages. */
export const workflow = new HandoffBuilder({
  name: 'mcp-files',
  participants: [triage, archivist],
})
  .coordinator(triage)
  .withTerminationCondition(
    new TextMentionTermination('bye', { sources: ['user'] }).or(new MaxMessageTermination(40)),
  )
  .build();

async function main(): Promise<void> {
  const session = workflow.session('sample');
  for (const reply of [
    'What does the release checklist say?',
    'And who is on call this week?',
    'thanks, bye',
  ]) {
    console.log(`\nuser> ${reply}`);
    const result = await Console(session.runStream(reply));
    console.log(`[${result.status}${result.stopReason ? `: ${result.stopReason}` : ''}]`);
  }
  await files.close();
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) await main();

import { describe, expect, it } from 'vitest';

import { Agent } from '../agents/agent.js';
import { graphMermaid } from '../cli/graph-command.js';
import { ScriptedChatClient } from '../models/scripted-chat-client.js';
import { HandoffBuilder } from '../orchestrations/handoff/handoff-builder.js';
import { RoundRobinGroupChat } from '../orchestrations/teams/round-robin-group-chat.js';
import { SelectorGroupChat } from '../orchestrations/teams/selector-group-chat.js';
import { Swarm } from '../orchestrations/teams/swarm.js';
import { graphStates } from './session-activity.js';
import { workflowGraph } from './workflow-graph.js';

const agent = (name: string, handoffs: string[] = []) =>
  new Agent({ name, handoffs, client: new ScriptedChatClient([]) });

const edges = (graph: ReturnType<typeof workflowGraph>) =>
  graph.edges.map((e) => `${e.from}-${e.kind}->${e.to}`);

describe('workflowGraph()', () => {
  it('reads a handoff workflow: the user, every participant and the allowed handoffs', () => {
    const workflow = new HandoffBuilder({
      name: 'desk',
      participants: [agent('triage'), agent('billing'), agent('tech')],
    })
      .coordinator('triage')
      .addHandoff('billing', ['tech'])
      .build();
    const graph = workflowGraph(workflow.machine);
    expect(graph.nodes.map((n) => [n.id, n.label, n.kind])).toEqual([
      ['triage', 'triage', 'agent'],
      ['billing', 'billing', 'agent'],
      ['tech', 'tech', 'agent'],
      ['awaitingInput', 'user', 'input'],
      ['stopped', 'stopped', 'stopped'],
    ]);
    expect(edges(graph)).toEqual([
      'triage-handoff->billing',
      'triage-handoff->tech',
      'triage-asks->awaitingInput',
      'billing-handoff->tech',
      'billing-asks->awaitingInput',
      'tech-asks->awaitingInput',
      'awaitingInput-message->triage',
    ]);
    expect(graph.edges.find((e) => e.kind === 'handoff')?.label).toBe('handoff_to_billing');
    // Columns by distance from the user: user, coordinator, specialists.
    const x = Object.fromEntries(graph.nodes.map((n) => [n.id, n.x]));
    expect(x.awaitingInput).toBeLessThan(x.triage as number);
    expect(x.triage).toBeLessThan(x.billing as number);
    expect(x.billing).toBe(x.tech);
    for (const e of graph.edges) expect(e.path).toMatch(/^M[\d.-]+,[\d.-]+ [QC]/);
  });

  it('reads the cycle of a round-robin team and the select state of a selector team', () => {
    const roundRobin = new RoundRobinGroupChat([agent('writer'), agent('critic')]);
    expect(edges(workflowGraph(roundRobin.machine))).toEqual([
      'writer-next->critic',
      'critic-next->writer',
      'awaitingInput-reply->writer',
      'awaitingInput-reply->critic',
    ]);
    const selector = new SelectorGroupChat([agent('a'), agent('b')], { selectorFunc: () => 'a' });
    expect(edges(workflowGraph(selector.machine))).toEqual([
      'a-next->selecting',
      'b-next->selecting',
      'selecting-selects->a',
      'selecting-selects->b',
      'awaitingInput-message->selecting',
    ]);
  });

  it('draws a swarm as Mermaid: handoffs, handoffs to the user and agents keeping the floor', () => {
    const swarm = new Swarm([agent('travel', ['refunds', 'user']), agent('refunds')]);
    expect(graphMermaid(workflowGraph(swarm.machine))).toBe(
      [
        'flowchart LR',
        '  n_travel["travel"]',
        '  n_refunds["refunds"]',
        '  n_awaitingInput((user))',
        '  n_travel -->|handoff_to_refunds| n_refunds',
        '  n_travel -. hands off to user .-> n_awaitingInput',
        '  n_travel -. continues .-> n_travel',
        '  n_refunds -->|handoff_to_travel| n_travel',
        '  n_refunds -. hands off to user .-> n_awaitingInput',
        '  n_refunds -. continues .-> n_refunds',
        '  n_awaitingInput -->|reply| n_travel',
        '  n_awaitingInput -->|reply| n_refunds',
        '',
      ].join('\n'),
    );
  });

  it('marks the router state of lazy routing and keeps the agent on its own state', () => {
    const workflow = new HandoffBuilder({
      participants: [agent('triage'), agent('billing'), agent('tech')],
    })
      .coordinator('triage')
      .withUserReplyRouting('lazy')
      .build();
    const graph = workflowGraph(workflow.machine);
    const router = graph.nodes.find((n) => n.router === true);
    expect(router).toMatchObject({ id: 'classifying', agent: 'triage', kind: 'agent' });
    expect(router?.label).toBe('classifying (triage)');
    expect(edges(graph)).toContain('billing-reroute->classifying');
    expect(graphStates(graph).agents.get('triage')).toBe('triage');
  });
});

import { describe, expect, it } from 'vitest';

import { Agent } from '../agents/agent.js';
import { graphMermaid } from '../cli/graph-command.js';
import { ScriptedChatClient } from '../models/scripted-chat-client.js';
import { GraphBuilder } from '../orchestrations/graph/graph-builder.js';
import { HandoffBuilder } from '../orchestrations/handoff/handoff-builder.js';
import { RoundRobinGroupChat } from '../orchestrations/teams/round-robin-group-chat.js';
import { SelectorGroupChat } from '../orchestrations/teams/selector-group-chat.js';
import { Swarm } from '../orchestrations/teams/swarm.js';
import { graphStates } from './session-activity.js';
import { labelBox } from './edge-labels.js';
import { shownLabel, workflowGraph } from './workflow-graph.js';

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
      'stopped-message->triage',
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
      'stopped-reply->writer',
      'stopped-reply->critic',
    ]);
    const selector = new SelectorGroupChat([agent('a'), agent('b')], { selectorFunc: () => 'a' });
    expect(edges(workflowGraph(selector.machine))).toEqual([
      'a-next->selecting',
      'b-next->selecting',
      'selecting-selects->a',
      'selecting-selects->b',
      'awaitingInput-message->selecting',
      'stopped-message->selecting',
    ]);
  });

  it('draws a swarm as Mermaid: handoffs, handoffs to the user and agents keeping the floor', () => {
    const swarm = new Swarm([agent('travel', ['refunds', 'user']), agent('refunds')]);
    expect(graphMermaid(workflowGraph(swarm.machine))).toBe(
      [
        'flowchart LR',
        '  n_travel["travel"]',
        '  n_refunds["refunds"]',
        '  n_user((user))',
        '  n_travel -->|handoff_to_refunds| n_refunds',
        '  n_travel -. hands off to user .-> n_user',
        '  n_travel -. continues .-> n_travel',
        '  n_refunds -->|handoff_to_travel| n_travel',
        '  n_refunds -. hands off to user .-> n_user',
        '  n_refunds -. continues .-> n_refunds',
        '  n_user -->|reply| n_travel',
        '  n_user -->|reply| n_refunds',
        '',
      ].join('\n'),
    );
  });

  it('names Mermaid nodes after what they show, never after internal state keys', () => {
    const selector = new SelectorGroupChat([agent('a'), agent('b')], { selectorFunc: () => 'a' });
    const text = graphMermaid(workflowGraph(selector.machine));
    expect(text).toBe(
      [
        'flowchart LR',
        '  n_a["a"]',
        '  n_b["b"]',
        '  n_selector{"selector"}',
        '  n_user((user))',
        '  n_a -->|next| n_selector',
        '  n_b -->|next| n_selector',
        '  n_selector -->|selected| n_a',
        '  n_selector -->|selected| n_b',
        '  n_user -->|message| n_selector',
        '',
      ].join('\n'),
    );
    expect(text).not.toMatch(/awaitingInput|selecting|stopped/);
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

/** The review graph of samples/review-graph.ts: a loop, a conditional fan-out, a fan-in. */
const reviewGraph = () => {
  const [writer, critic, french, german, summary] = [
    'writer',
    'critic',
    'translator_french',
    'translator_german',
    'summary',
  ].map((n) => agent(n)) as [Agent, Agent, Agent, Agent, Agent];
  return new GraphBuilder({ name: 'review' })
    .addNode(writer)
    .addNode(critic)
    .addNode(french)
    .addNode(german)
    .addNode(summary, { activation: 'any' })
    .addEdge(writer, critic)
    .addEdge(critic, writer, { when: 'REVISE' })
    .addEdge(critic, [french, german], {
      when: function approved() {
        return true;
      },
    })
    .addEdge([french, german], summary)
    .setEntryPoint(writer)
    .build();
};

describe('workflowGraph() of a GraphBuilder workflow', () => {
  it('draws the nodes and edges as built, with their conditions, fan-out and fan-in', () => {
    const graph = workflowGraph(reviewGraph().machine);
    expect(graph.nodes.map((n) => [n.id, n.label, n.kind, n.activation])).toEqual([
      ['writer', 'writer', 'agent', 'all'],
      ['critic', 'critic', 'agent', 'all'],
      ['translator_french', 'translator_french', 'agent', 'all'],
      ['translator_german', 'translator_german', 'agent', 'all'],
      ['summary', 'summary', 'agent', 'any'],
      ['awaitingInput', 'user', 'input', undefined],
      ['stopped', 'stopped', 'stopped', undefined],
    ]);
    expect(graph.edges.map((e) => `${e.from} -${e.label}-> ${e.to}`)).toEqual([
      'awaitingInput -message-> writer',
      'stopped -message-> writer',
      'writer --> critic',
      'critic -REVISE-> writer',
      'critic -approved()-> translator_french',
      'critic -approved()-> translator_german',
      'translator_french --> summary',
      'translator_german --> summary',
    ]);
    expect(graph.nodes.some((n) => n.id === 'dispatching')).toBe(false);
  });

  it('lays a graph out top down: a row per step from the user, the fan-out side by side', () => {
    const graph = workflowGraph(reviewGraph().machine);
    const at = Object.fromEntries(graph.nodes.map((n) => [n.id, n]));
    const y = (id: string) => at[id]?.y as number;
    expect(y('awaitingInput')).toBe(y('stopped'));
    expect(y('awaitingInput')).toBeLessThan(y('writer'));
    expect(y('writer')).toBeLessThan(y('critic'));
    expect(y('critic')).toBeLessThan(y('translator_french'));
    expect(y('translator_french')).toBe(y('translator_german'));
    expect(y('translator_german')).toBeLessThan(y('summary'));
    expect(at.translator_french?.x).toBeLessThan(at.translator_german?.x as number);
    // A node is as wide as its name needs.
    expect(at.translator_german?.width).toBeGreaterThanOrEqual(17 * 7.2);
  });

  it('names an anonymous predicate "when"', () => {
    const [a, b] = [agent('a'), agent('b')];
    const flow = new GraphBuilder({ name: 'g' })
      .addNode(a)
      .addNode(b)
      .addEdge(a, b, { when: () => true })
      .build();
    expect(workflowGraph(flow.machine).edges.find((e) => e.from === 'a')?.label).toBe('when');
  });
});

describe('workflowGraph() layout of labels and the stop', () => {
  const graphs = {
    'a support desk with four specialists': new HandoffBuilder({
      participants: ['triage', 'billing', 'technical', 'account', 'sales'].map((n) => agent(n)),
    })
      .coordinator('triage')
      .addHandoff('billing', ['technical'])
      .build().machine,
    'lazy routing': new HandoffBuilder({
      participants: [agent('triage'), agent('billing'), agent('tech')],
    })
      .coordinator('triage')
      .withUserReplyRouting('lazy')
      .build().machine,
    'a round-robin team': new RoundRobinGroupChat([agent('writer'), agent('critic')]).machine,
    'a swarm': new Swarm([agent('travel', ['refunds', 'user']), agent('refunds', ['user'])])
      .machine,
    'a selector team': new SelectorGroupChat([agent('a'), agent('b'), agent('c')], {
      selectorFunc: () => 'a',
    }).machine,
    'a review graph': reviewGraph().machine,
  };

  for (const [name, machine] of Object.entries(graphs)) {
    it(`keeps every edge label of ${name} clear of the others and of the nodes`, () => {
      const graph = workflowGraph(machine);
      const labelled = graph.edges.filter((e) => shownLabel(e.kind, e.label) !== '');
      expect(labelled.length).toBeGreaterThan(0);
      const boxes = labelled.map((e) =>
        labelBox(shownLabel(e.kind, e.label), { x: e.labelX, y: e.labelY }),
      );
      const clash: string[] = [];
      boxes.forEach((a, i) => {
        boxes.slice(i + 1).forEach((b, j) => {
          if (a.left < b.right && b.left < a.right && a.top < b.bottom && b.top < a.bottom)
            clash.push(`${labelled[i]?.id} × ${labelled[i + 1 + j]?.id}`);
        });
        for (const n of graph.nodes) {
          const inside =
            a.left < n.x + n.width / 2 &&
            n.x - n.width / 2 < a.right &&
            a.top < n.y + n.height / 2 &&
            n.y - n.height / 2 < a.bottom;
          if (inside) clash.push(`${labelled[i]?.id} × node ${n.id}`);
        }
      });
      expect(clash).toEqual([]);
    });

    it(`keeps the nodes of ${name} apart`, () => {
      const { nodes } = workflowGraph(machine);
      const clash = nodes.flatMap((a, i) =>
        nodes
          .slice(i + 1)
          .filter(
            (b) =>
              Math.abs(a.x - b.x) < (a.width + b.width) / 2 &&
              Math.abs(a.y - b.y) < (a.height + b.height) / 2,
          )
          .map((b) => `${a.id} × ${b.id}`),
      );
      expect(clash).toEqual([]);
    });

    it(`draws the stopped state of ${name} connected`, () => {
      const graph = workflowGraph(machine);
      const stopped = graph.nodes.find((n) => n.kind === 'stopped');
      expect(stopped).toBeDefined();
      expect(graph.edges.filter((e) => e.from === stopped?.id).length).toBeGreaterThan(0);
    });
  }
});

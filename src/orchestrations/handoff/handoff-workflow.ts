import type { Orchestration } from '../../engine/orchestration.js';
import type { Checkpointing } from '../../engine/log/checkpointing.js';
import { WorkflowRunner } from '../../engine/session/workflow-runner.js';
import { handoffMermaid } from './handoff-mermaid.js';
import type { HandoffTopology } from './handoff-topology.js';

/**
 * A built handoff workflow: a `Runnable` whose sessions run the compiled statechart. One object
 * serves any number of sessions at once.
 */
export class HandoffWorkflow extends WorkflowRunner {
  readonly name: string;
  readonly coordinator: string;
  /** Per participant, the agents it may hand off to. */
  readonly handoffTargets: ReadonlyMap<string, readonly string[]>;

  /** @internal `HandoffBuilder.build()` makes workflows; this constructor is not public API. */
  constructor(
    orchestration: Orchestration,
    topology: HandoffTopology,
    checkpointing?: Checkpointing,
  ) {
    super(orchestration, checkpointing);
    this.name = topology.name;
    this.coordinator = topology.coordinator;
    this.handoffTargets = topology.targets;
  }

  /** The routing graph as Mermaid flowchart text, drawn from the compiled machine. */
  toMermaid(): string {
    return handoffMermaid(this.machine, this.coordinator);
  }
}

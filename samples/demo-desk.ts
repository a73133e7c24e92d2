// The support desk that `npm start` (baton demo) runs, with its built-in offline model, as a
// workflow module: triage routes billing, technical and account requests by keywords. Its routing
// is measured by the cases beside it:
//
//   npx tsx src/cli/main.ts eval routing samples/demo-desk.ts samples/demo-desk.routing.jsonl
//
// and a session the demo kept in .baton/ becomes a test (a refund, say):
//
//   npx tsx src/cli/main.ts test record samples/demo-desk.ts --session <id> --store .baton
import type { CheckpointStore } from '../src/checkpoint/checkpoint-store.js';
import { createSupportDesk } from '../src/cli/demo-desk.js';
import { OfflineDeskModel } from '../src/cli/demo-model.js';

/** The demo's desk, offline: no API key, the same answers every time. */
export const workflow = createSupportDesk((role) => new OfflineDeskModel(role)).workflow;

/** The same desk on a checkpoint store (what `--store` gives), as the demo keeps its sessions. */
export function createWorkflow(options: { checkpointStore: CheckpointStore }) {
  return createSupportDesk((role) => new OfflineDeskModel(role), options).workflow;
}

// The support desk that `npm start` (baton demo) runs, with its built-in offline model, as a
// workflow module: triage routes billing, technical and account requests by keywords. Its routing
// is measured by the cases beside it:
//
//   npx tsx src/cli/main.ts eval routing samples/demo-desk.ts samples/demo-desk.routing.jsonl
import { createSupportDesk } from '../src/cli/demo-desk.js';
import { OfflineDeskModel } from '../src/cli/demo-model.js';

/** The demo's desk, offline: no API key, the same answers every time. */
export const workflow = createSupportDesk((role) => new OfflineDeskModel(role)).workflow;

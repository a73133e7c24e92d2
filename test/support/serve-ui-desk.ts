// The demo's support desk (`npm start`) for `baton serve --ui` in the browser test: triage, billing,
// technical and account on the built-in offline model, which streams its answers word by word.
// BATON_DESK_THINK_MS makes every model call take that long, so a test can reload the page while
// a run is going.
import { createSupportDesk } from '../../src/cli/demo-desk.js';
import { OfflineDeskModel } from '../../src/cli/demo-model.js';

const thinkMs = Number(process.env.BATON_DESK_THINK_MS ?? '0');

export const workflow = createSupportDesk(
  (role) => new OfflineDeskModel(role, { thinkMs }),
).workflow;

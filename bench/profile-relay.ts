// The workload `npm run bench` profiles with `node --cpu-prof`: Baton's relay desk, three 200-turn
// sessions one after another, so that the growth with the thread dominates the profile.
import { openRelay, userTurn } from './relay.js';

const framework = await openRelay('baton');
for (let s = 0; s < 3; s++) {
  const session = framework.session(`profile-${s}`);
  for (let t = 1; t <= 200; t++) await session.run(userTurn(t));
}
await framework.close();
console.log(JSON.stringify({ bench: 'profile-relay', sessions: 3, turns: 200 }));

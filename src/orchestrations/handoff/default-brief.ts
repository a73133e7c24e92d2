import { z } from 'zod';

/**
 * The brief of a workflow's handoffs unless it sets its own: the reason for the handoff. The model
 * is asked for it; a handoff without one (a scripted model, a recording made before briefs) is
 * still a handoff, with no brief recorded (a brief without fields says nothing).
 */
export const DEFAULT_HANDOFF_BRIEF = z.object({
  reason: z
    .string()
    .optional()
    .describe('Why you hand off: what the next agent needs to know to go on.'),
});

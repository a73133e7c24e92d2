// Characters that move the cursor, erase, change colours or reorder text when written to a
// terminal: C0 controls (ESC starts every ANSI sequence, CR returns to the line's start, BS steps
// back), DEL, C1 controls (0x9b is CSI on 8-bit terminals), and the Unicode bidi controls and line
// separators, which can make "5000" read as "0005".
const CONTROLS =
  // eslint-disable-next-line no-control-regex -- matching control characters is the point
  /\r\n|[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;

/** The pattern of `CONTROLS`, for a browser page that shows text as `visibleControls()` does. */
export const CONTROLS_SOURCE = CONTROLS.source;

const NAMED: Readonly<Record<string, string>> = { '\n': '\\n', '\r': '\\r', '\t': '\\t' };

/** How `visibleControls()` treats line breaks and tabs. */
export interface VisibleControlsOptions {
  /**
   * Keep `\n` (and `\r\n`, as `\n`) and tabs for a multi-line body; every other control is still
   * made visible. Off, the text stays on one line: for a prompt that must read exactly as written.
   * @default false
   */
  readonly keepLines?: boolean;
}

/**
 * Model- or user-controlled text made safe to write to a terminal: every control character is
 * shown as an escape (`\r`, `\x1b`, `\u202e`) instead of acting, so no text can move the cursor,
 * clear the screen, hide itself or rewrite a line. Printable text, backslashes included, is
 * unchanged.
 */
export function visibleControls(text: string, options: VisibleControlsOptions = {}): string {
  const keepLines = options.keepLines === true;
  return text.replace(CONTROLS, (control) => {
    if (control === '\r\n') return keepLines ? '\n' : '\\r\\n';
    if (keepLines && (control === '\n' || control === '\t')) return control;
    const named = NAMED[control];
    if (named !== undefined) return named;
    const code = control.charCodeAt(0);
    return code < 0x100
      ? `\\x${code.toString(16).padStart(2, '0')}`
      : `\\u${code.toString(16).padStart(4, '0')}`;
  });
}

// The lines of a FileCheckpointStore log, as tests write and read them. Since issue 19 the store
// writes `<step><kind><data>` (format 2: the step in decimal, `=` for a snapshot or `+` for a step
// record, then the data unescaped); it still reads the lines it wrote before, one JSON object
// `{"step":n,"snapshot":b,"data":"…"}` per line (format 1), and a log may mix the two.

export interface LogLine {
  step: number;
  snapshot: boolean;
  data: string;
}

/** A record as the store writes it (format 2), without its newline. */
export function logLine(record: LogLine): string {
  return `${record.step}${record.snapshot ? '=' : '+'}${record.data}`;
}

/** A record as the store wrote it before issue 19 (format 1), without its newline. */
export function jsonLogLine(record: LogLine): string {
  return JSON.stringify({ step: record.step, snapshot: record.snapshot, data: record.data });
}

/** A line of either format as its record; throws on anything else. */
export function readLogLine(line: string): LogLine {
  if (line.startsWith('{')) return JSON.parse(line) as LogLine;
  const header = /^([0-9]+)([=+])/.exec(line);
  if (header === null) throw new Error(`not a log line: ${JSON.stringify(line.slice(0, 40))}`);
  return {
    step: Number(header[1]),
    snapshot: header[2] === '=',
    data: line.slice(header[0].length),
  };
}

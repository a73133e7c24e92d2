// How the benchmark tables write numbers: thousands separators, µs or ms, B to GB, ratios as ×.

export const fmt = (n: unknown, digits = 0) =>
  typeof n === 'number' ? n.toLocaleString('en-US', { maximumFractionDigits: digits }) : 'n/a';

/** A time given in µs: µs below a millisecond, else ms. */
export const time = (us: unknown) => {
  if (typeof us !== 'number') return 'n/a';
  if (us < 1000) return `${fmt(us)} µs`;
  return `${fmt(us / 1000, us < 10_000 ? 2 : 1)} ms`;
};

export const bytes = (b: unknown) => {
  if (typeof b !== 'number') return 'n/a';
  if (b < 1000) return `${fmt(b)} B`;
  if (b < 1e6) return `${fmt(b / 1000, 1)} kB`;
  if (b < 1e9) return `${fmt(b / 1e6, 1)} MB`;
  return `${fmt(b / 1e9, 2)} GB`;
};

export const ratio = (a: unknown, b: unknown) =>
  typeof a === 'number' && typeof b === 'number' && b > 0 ? a / b : undefined;

export const times = (r: unknown) =>
  typeof r === 'number' ? `${fmt(r, r < 0.1 ? 3 : 2)}×` : 'n/a';

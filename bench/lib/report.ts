/** One figure: printed as `name: value unit` the moment it is measured, and kept for results.json. */
export interface Figure {
  name: string;
  value: number;
  unit: string;
}

export class Report {
  readonly figures: Figure[] = [];

  /** Rounds to a sensible precision for the unit before printing. */
  figure(name: string, value: number, unit: string): void {
    const rounded = round(value);
    this.figures.push({ name, value: rounded, unit });
    console.log(`${name}: ${rounded} ${unit}`);
  }

  /** Context that is not a figure (which size ran, the machine): printed as a `#` comment. */
  note(text: string): void {
    console.log(`# ${text}`);
  }
}

export function round(value: number): number {
  if (!Number.isFinite(value)) return value;
  const abs = Math.abs(value);
  const digits = abs >= 100 ? 0 : abs >= 10 ? 1 : abs >= 1 ? 2 : 3;
  const f = 10 ** digits;
  return Math.round(value * f) / f;
}

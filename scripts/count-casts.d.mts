export function castsIn(text: string, fileName?: string): number[];
export function castsBySourceFile(dir?: string): Map<string, number>;

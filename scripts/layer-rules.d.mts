export interface Layer {
  name: string;
  role: string;
  paths: string[];
}
export interface LayersFile {
  about: string;
  layers: Layer[];
  interfaces?: { paths: string[]; only: string[]; for: string[]; why: string }[];
  packages?: { name: string; paths: string[]; why: string }[];
}
export function readLayers(): LayersFile;
export function layerOf(
  path: string,
  layers?: Layer[],
): { index: number; name: string } | undefined;
export function restrictedPatterns(
  dir: string,
  layerIndex: number,
  config?: LayersFile,
  files?: string[],
): { regex: string; message: string }[];
export function layerRules(config?: LayersFile): object[];

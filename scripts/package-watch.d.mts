export function watchPackages(): () => string[];

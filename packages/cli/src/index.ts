export function main(argv: string[]): void { console.log("stub", argv); }

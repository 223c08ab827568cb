/** The directory of the built console (its `index.html` and `assets/`), or undefined before `pnpm build`. */
export declare function consoleRoot(): string | undefined;

/** Vite's `?raw` imports: the file's text, inlined at build time. */
declare module '*?raw' {
  const text: string;
  export default text;
}

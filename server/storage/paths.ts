/** `<account>/<random>.png` -> `<account>/<random>-t.png`: one rule, shared with the console. */
export { thumbnailPathOf } from '@parley/shared';

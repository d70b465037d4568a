/**
 * Issue 13: the languages the widget ships (one texts module each in widget/src/ui/texts.ts,
 * kept equal by its i18n test), and which of them are written right to left. Zod-free: the
 * widget's loader and UI import it.
 */
// Pure: bundles that do not use the list (the widget's UI chunk) leave it out.
export const WIDGET_LANGUAGES = /* @__PURE__ */ 'en af am ar az be bg bn bs ca ckb cs cy da de el es et eu fa fi fil fr ga gl gu he hi hr hu hy id is it ja ka kk km kn ko lo lt lv mk ml mn mr ms my nb ne nl pa pl ps pt pt-br ro ru sd si sk sl sq sr sv sw ta te th tr ug uk ur uz vi yi zh zh-tw zu'.split(' ');

/** Every right-to-left language (the shipped ones and those a browser may name first). */
export const RTL_LANGUAGES = ['ar', 'he', 'fa', 'ur', 'ps', 'ckb', 'yi', 'ug', 'sd', 'dv', 'ku-arab'];

export function isRtlLanguage(lang: string): boolean {
  const tag = lang.toLowerCase();
  return RTL_LANGUAGES.includes(tag) || RTL_LANGUAGES.includes(tag.split('-')[0] ?? '');
}

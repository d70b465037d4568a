import { Banner } from '../ui';

/** Shown above a settings form the signed-in user may read but not change (PRODUCT.md section 2). */
export const READ_ONLY_TEXT = 'Only the account owner or an Admin can change these settings.';

export function ReadOnlyNotice() {
  return <Banner kind="info">{READ_ONLY_TEXT}</Banner>;
}

import type { ConversationDto, LabelDto } from '@parley/shared';

/** The list as the label filter shows it (live pushes may bring conversations without the label). */
export function withLabel<T extends Pick<ConversationDto, 'labels'>>(list: T[], labelId: number | null): T[] {
  return labelId === null ? list : list.filter((c) => c.labels?.some((l) => l.id === labelId));
}

/** A pushed conversation without labels (only label changes carry them) keeps the labels held. */
export function keepHeldLabels<T extends { labels?: LabelDto[] }>(c: T, held: { labels?: LabelDto[] } | null | undefined): T {
  return c.labels === undefined && held?.labels ? { ...c, labels: held.labels } : c;
}

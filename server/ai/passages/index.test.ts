import { describe, expect, it } from 'vitest';
import { extractiveReply, type Passage, PassageIndex } from './index.js';

// The passage index of issue 17 (pure, no database): ranking over a business's own pages and
// FAQ rows, honest confidence, and the extractive reply.
const SITE = 'site-1';
const FAQ = 'faq-1';
let nextId = 1;
const page = (title: string, heading: string, text: string, url = `https://shop.example/${title.toLowerCase()}`): Passage => ({
  id: nextId++,
  sourceId: SITE,
  title,
  url,
  heading,
  question: null,
  text,
  weight: 1,
});
const faq = (question: string, answer: string): Passage => ({ id: nextId++, sourceId: FAQ, title: 'faq.csv', url: null, heading: '', question, text: answer, weight: 1 });

function shop(): { index: PassageIndex; passages: Passage[] } {
  const passages = [
    page('Prices', 'Workshop prices', 'A puncture repair costs 9 pounds. A full service costs 95 pounds and includes gears and brakes.'),
    page('Prices', 'Paying', 'We accept cash, debit cards and credit cards. Spread the cost over twelve months at zero interest.'),
    page('Hire', 'Hire rates', 'A city bike costs 20 pounds per day. The weekend deal runs from Friday evening to Monday morning.'),
    page('Hire', 'What you need', 'Bring photo identification and leave a deposit of 100 pounds on a card.'),
    page('Contact', 'Finding us', 'The shop is at 27 Quarry Lane, next to the railway station. Parking is in the yard behind the building.'),
    page('Home', 'Opening hours', 'The shop opens Tuesday to Saturday from 9:30 to 18:00. We are closed on Sundays and Mondays.'),
    faq('Do you sell gift cards?', 'Gift vouchers are sold in the shop from 10 pounds and never expire.'),
    faq('Is there a student discount?', 'Students with a valid card get 10 % off accessories and labour.'),
  ];
  const index = new PassageIndex();
  for (const p of passages) index.add(p);
  return { index, passages };
}

describe('passage index', () => {
  it('ranks the passage that answers first, from the page text, its heading or the FAQ question', () => {
    const { index, passages } = shop();
    expect(index.search('How much is a full service?').best?.passage.id).toBe(passages[0]!.id);
    expect(index.search('what deposit do I leave to hire a bike').best?.passage.id).toBe(passages[3]!.id);
    expect(index.search('When are your opening hours?').best?.passage.id).toBe(passages[5]!.id);
    expect(index.search('gift card').best?.passage.id).toBe(passages[6]!.id);
    // Another language reaches the page through the shared concepts (livraison/prix/ouvert...).
    const fr = index.search("Quels sont vos horaires d'ouverture ?").best;
    expect(fr?.passage.id).toBe(passages[5]!.id);
  });

  it('is confident on a question the passage answers, and not on an off-topic one', () => {
    const { index } = shop();
    expect(index.search('Do students get a discount?').best!.confidence).toBeGreaterThanOrEqual(0.6);
    for (const q of ['What is the capital of Australia?', 'Can you write me a poem about the sea?', 'How tall is Mount Everest?']) {
      expect(index.search(q).best?.confidence ?? 0).toBeLessThan(0.6);
    }
  });

  it('two topics answering the question equally is a coin toss: lower confidence than one clear answer', () => {
    const { index } = shop();
    const clear = index.search('Is there a student discount?').best!.confidence;
    const shared = new PassageIndex();
    shared.add(page('A', 'Discounts', 'Students get a discount on labour.'));
    shared.add(page('B', 'Discounts for students', 'Students get a discount on accessories.'));
    for (const p of shop().passages.slice(0, 6)) shared.add({ ...p, id: p.id + 1000 });
    expect(shared.search('Is there a student discount?').best!.confidence).toBeLessThan(clear);
  });

  it('removing or replacing a passage takes it out of the answers', () => {
    const { index, passages } = shop();
    const gift = passages[6]!;
    expect(index.search('gift card').best?.passage.id).toBe(gift.id);
    index.remove(gift.id);
    expect(index.search('gift card').best?.passage.id).not.toBe(gift.id);
    index.add({ ...gift, text: 'Gift vouchers are no longer sold.' });
    expect(index.search('gift card').best?.passage.text).toBe('Gift vouchers are no longer sold.');
    expect(index.idsOfSource(FAQ).sort()).toEqual([gift.id, passages[7]!.id].sort());
  });

  it('learns related terms from its own headings: a heading word reaches text that only shares its companion words', () => {
    const build = (lateWord: string) => {
      const index = new PassageIndex();
      // Under two "Sauna" headings the text speaks of steam: the index learns sauna ~ steam.
      index.add(page('Spa', 'Sauna', 'The steam cabin seats eight guests.', 'https://spa.example/a'));
      index.add(page('Wellness', 'Sauna etiquette', 'Shower before the steam cabin, and bring a towel.', 'https://spa.example/b'));
      const rooms = ['pool', 'gym', 'yoga', 'massage', 'cafe', 'lockers', 'parking', 'kids', 'pilates', 'tennis', 'climbing', 'boxing', 'squash', 'rowing', 'dance', 'judo'];
      for (const [i, w] of rooms.entries()) index.add(page(`Page ${i}`, w, `Our ${w} area is on floor ${i}.`, `https://spa.example/${w}`));
      const late = page('Hours', '', `The ${lateWord} stays lit until midnight on Fridays.`, 'https://spa.example/late');
      index.add(late);
      return { index, late };
    };
    // The same index but for one word of the late-night passage: "steam" (learned companion of
    // "sauna") or "lantern" (no relation).
    const learned = build('steam');
    const hit = learned.index.search('sauna midnight').candidates.find((c) => c.passage.id === learned.late.id)!;
    const plain = build('lantern');
    const without = plain.index.search('sauna midnight').candidates.find((c) => c.passage.id === plain.late.id)!;
    // "sauna" is not in the late-night passage; through "steam" it counts part of a match.
    expect(hit.features.queryCoverage).toBeGreaterThan(without.features.queryCoverage + 0.1);
  });

  it("learns related terms from the account's approved question/answer pairs too", () => {
    const build = () => {
      const index = new PassageIndex();
      const rooms = ['pool', 'gym', 'yoga', 'massage', 'cafe', 'lockers', 'parking', 'kids', 'pilates', 'tennis', 'climbing', 'boxing', 'squash', 'rowing', 'dance', 'judo'];
      for (const [i, w] of rooms.entries()) index.add(page(`Page ${i}`, w, `Our ${w} area is on floor ${i}.`, `https://spa.example/${w}`));
      const late = page('Hours', '', 'The steam cabin stays lit until midnight on Fridays.', 'https://spa.example/late');
      index.add(late);
      return { index, late };
    };
    const coverage = (b: ReturnType<typeof build>) => b.index.search('sauna midnight').candidates.find((c) => c.passage.id === b.late.id)!.features.queryCoverage;
    const plain = build();
    const taught = build();
    const pairs = [
      { question: 'Is the sauna mixed?', answer: 'The steam cabin is mixed except on Mondays.' },
      { question: 'How hot is the sauna?', answer: 'The steam cabin runs at 90 degrees.' },
    ];
    taught.index.learnPairs(1, () => pairs);
    expect(coverage(taught)).toBeGreaterThan(coverage(plain) + 0.1);
    // The same version again is not re-read; a new one replaces the pairs.
    taught.index.learnPairs(1, () => []);
    expect(coverage(taught)).toBeGreaterThan(coverage(plain) + 0.1);
    taught.index.learnPairs(2, () => []);
    expect(coverage(taught)).toBeCloseTo(coverage(plain), 5);
  });

  it('reaches a passage that shares no word with an English question through the thesaurus, weighed below a real match', () => {
    const index = new PassageIndex();
    const frames = page('Workshop', 'Custom builds', 'We weld custom steel frames to measure in six weeks.');
    index.add(frames);
    index.add(page('Contact', 'Finding us', 'The shop is at 27 Quarry Lane, next to the railway station.'));
    index.add(page('Hire', 'Hire rates', 'A city bike costs 20 pounds per day, with a helmet and a lock.'));
    index.add(page('About', 'Our story', 'The family opened the shop in 2009 and still runs it.'));
    index.add(faq('Do you sell gift cards?', 'Gift vouchers are sold from 10 pounds and never expire.'));
    const ask = (thesaurus: boolean) => {
      index.useThesaurus = thesaurus;
      return index.search('Do you make a chassis?');
    };
    // Without it, no word of the question is in the passage.
    const plain = ask(false).candidates.find((c) => c.passage.id === frames.id);
    expect(plain?.features.queryCoverage ?? 0).toBe(0);
    // "chassis" ~ frame: found, counted part of a match, never as direct words.
    const found = ask(true).best!;
    expect(found.passage.id).toBe(frames.id);
    expect(found.features.queryCoverage).toBeGreaterThan(0.3);
    expect(found.features.queryCoverage).toBeLessThan(1);
    expect(found.features.direct).toBe(0);
    // The same question in the passage's own words is more certain.
    expect(index.search('Do you make frames?').best!.confidence).toBeGreaterThan(found.confidence);
  });

  it('leaves French, Spanish and German questions to the multilingual normalisation (the thesaurus is English)', () => {
    const { index } = shop();
    for (const q of ['Pouvez-vous réviser mon vélo ?', '¿Cuánto cuesta alquilar una bici?', 'Wo kann ich mein Auto parken?']) {
      index.useThesaurus = false;
      const without = index.search(q);
      index.useThesaurus = true;
      const withIt = index.search(q);
      expect(withIt.best?.passage.id).toBe(without.best?.passage.id);
      expect(withIt.best?.confidence).toBe(without.best?.confidence);
    }
  });

  it('a feedback weight changes the confidence, not what the passage matches', () => {
    const { index, passages } = shop();
    const before = index.search('Is there a student discount?').best!;
    index.add({ ...passages[7]!, weight: 0.4 });
    const after = index.search('Is there a student discount?').best!;
    expect(after.passage.id).toBe(before.passage.id);
    expect(after.confidence).toBeLessThan(before.confidence);
    expect(after.features).toEqual(before.features);
  });

  it('a large account answers at once after a change, with the related terms it had, and learns the new ones right after', async () => {
    const index = new PassageIndex();
    const rooms = ['pool', 'gym', 'yoga', 'massage', 'cafe', 'lockers', 'parking', 'kids', 'pilates', 'tennis', 'climbing', 'boxing', 'squash', 'rowing', 'dance', 'judo'];
    for (let i = 0; i < 2000; i++) {
      const w = rooms[i % rooms.length]!;
      index.add(page(`Page ${i}`, `${w} ${i}`, `Our ${w} area number ${i} is open on floor ${i % 7}.`, `https://spa.example/${i}`));
    }
    const late = page('Hours', '', 'The steam cabin stays lit until midnight on Fridays.', 'https://spa.example/late');
    index.add(late);
    const coverage = () => index.search('sauna midnight').candidates.find((c) => c.passage.id === late.id)?.features.queryCoverage ?? 0;
    coverage(); // the first search builds the table
    // Two "Sauna" headings over steam teach sauna ~ steam; on 2,000 passages the table is rebuilt off the request:
    // the search right after the change still uses the old table (no sauna ~ steam), the next tick has it.
    index.add(page('Spa', 'Sauna', 'The steam cabin seats eight guests.', 'https://spa.example/a'));
    index.add(page('Wellness', 'Sauna etiquette', 'Shower before the steam cabin, and bring a towel.', 'https://spa.example/b'));
    const rightAfter = coverage();
    await new Promise((r) => setImmediate(r));
    expect(coverage()).toBeGreaterThan(rightAfter + 0.1);
  });

  it('a passage down-weighted by feedback is trusted less', () => {
    const { index, passages } = shop();
    const before = index.search('Is there a student discount?').best!.confidence;
    index.add({ ...passages[7]!, weight: 0.4 });
    expect(index.search('Is there a student discount?').best!.confidence).toBeLessThan(before);
  });

  it('vectors reach a passage that shares no word with the question, and only the nearest topic gains', () => {
    const { index, passages } = shop();
    const v = (i: number) => Array.from({ length: 8 }, (_, k) => (k === i ? 1 : 0.05));
    passages.forEach((p, i) => {
      index.add({ ...p, embedding: v(i) });
    });
    expect(index.embedded).toBe(passages.length);
    const hit = index.search('zzz qqq', 4, v(4)).best!;
    expect(hit.passage.id).toBe(passages[4]!.id);
    expect(hit.features.semantic).toBeGreaterThan(0.9);
  });

  it('replies with the sentences that matter, an FAQ answer whole', () => {
    const long = page(
      'Repairs',
      'Full service',
      'Most jobs are finished within two working days. ' +
        'A full service includes stripping the drivetrain, cleaning it in a solvent bath, truing both wheels and adjusting gears. ' +
        'We also sell bikes of every kind, from city bikes to gravel bikes, and we fix every brand whatever its age. '.repeat(4),
    );
    const reply = extractiveReply(long, 'What does a full service include?', 200);
    expect(reply.startsWith('A full service includes stripping the drivetrain')).toBe(true);
    expect(reply.length).toBeLessThan(long.text.length);
    const f = faq('Do you ship?', 'We post parts anywhere. Orders over 40 pounds travel free.');
    expect(extractiveReply(f, 'Do you ship?')).toBe(f.text);
  });
});

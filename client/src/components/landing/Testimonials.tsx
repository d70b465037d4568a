import { useCallback, useEffect, useState } from 'react';

const ROTATE_MS = 5000;
const QUOTES = [
  { text: 'We answer twice as many customers with the same team. The AI assistant handles the repetitive questions so we can focus on the tricky ones.', name: 'Amara Okafor', role: 'Head of Support, Lumen Goods' },
  { text: 'Setup really took five minutes. We pasted one script and were chatting with visitors before lunch.', name: 'Daniel Reyes', role: 'Founder, Tidewater Travel' },
  { text: 'The visitor analytics showed us where people got stuck on checkout. Conversions went up 18% in a month.', name: 'Mei Tanaka', role: 'E-commerce Manager, Kiko Studio' },
  { text: 'Our customers write in a dozen languages. Parley made that feel effortless for our small team.', name: 'Lars Eriksen', role: 'COO, Nordlys Outdoor' },
];

/** Testimonials rotating every 5 s, with previous/next buttons and dots. */
export function Testimonials() {
  const [index, setIndex] = useState(0);
  const [paused, setPaused] = useState(false);
  const go = useCallback((i: number) => setIndex((i + QUOTES.length) % QUOTES.length), []);

  // Restarting the timer on every index change keeps a full 5 s after a manual move.
  useEffect(() => {
    if (paused) return;
    const id = window.setTimeout(() => go(index + 1), ROTATE_MS);
    return () => window.clearTimeout(id);
  }, [index, paused, go]);

  const q = QUOTES[index] ?? QUOTES[0]!;
  return (
    <section className="lp-section" aria-labelledby="lp-testimonials-title" id="testimonials">
      <div className="lp-wrap">
        <h2 id="lp-testimonials-title">Loved by support teams</h2>
        <p className="lp-sub">Businesses of every size use Parley to talk with their customers.</p>
        <figure className="lp-quote" aria-roledescription="carousel">
          <blockquote key={index}>“{q.text}”</blockquote>
          <figcaption>
            <b>{q.name}</b>
            {q.role}
          </figcaption>
        </figure>
        <div className="lp-carousel-ctrl">
          <button type="button" className="lp-round" aria-label="Previous testimonial" onClick={() => go(index - 1)}>
            ‹
          </button>
          <div className="lp-dots">
            {QUOTES.map((item, i) => (
              <button
                key={item.name}
                type="button"
                aria-label={`Show testimonial ${i + 1} of ${QUOTES.length}`}
                aria-current={i === index}
                onClick={() => go(i)}
              />
            ))}
          </div>
          <button type="button" className="lp-round" aria-label="Next testimonial" onClick={() => go(index + 1)}>
            ›
          </button>
          <button type="button" className="lp-round" aria-label={paused ? 'Play testimonials' : 'Pause testimonials'} onClick={() => setPaused((p) => !p)}>
            <span aria-hidden="true">{paused ? '▶' : '❚❚'}</span>
          </button>
        </div>
      </div>
    </section>
  );
}

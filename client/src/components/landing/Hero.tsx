import { Link } from '@tanstack/react-router';
import { useEffect, useState } from 'react';

const WORDS = ['connect', 'engage', 'convert', 'support', 'delight'];
const WORD_MS = 2500;

/** Counts from 0 to `target` once, over `ms`, easing out. */
function useCountUp(target: number, ms = 1600): number {
  const [value, setValue] = useState(0);
  useEffect(() => {
    let frame = 0;
    const start = performance.now();
    const tick = (now: number) => {
      const t = Math.min(1, (now - start) / ms);
      setValue(target * (1 - (1 - t) ** 3));
      if (t < 1) frame = requestAnimationFrame(tick);
    };
    frame = requestAnimationFrame(tick);
    return () => cancelAnimationFrame(frame);
  }, [target, ms]);
  return value;
}

function Counter({ label, target, suffix, decimals = 0 }: { label: string; target: number; suffix: string; decimals?: number }) {
  const value = useCountUp(target);
  return (
    <div>
      <dt>{label}</dt>
      <dd>
        <span aria-hidden="true">
          {value.toLocaleString('en-US', { minimumFractionDigits: decimals, maximumFractionDigits: decimals })}
          {suffix}
        </span>
        <span className="lp-sr">
          {target.toLocaleString('en-US')}
          {suffix}
        </span>
      </dd>
    </div>
  );
}

export function Hero() {
  const [index, setIndex] = useState(0);
  useEffect(() => {
    const id = window.setInterval(() => setIndex((i) => (i + 1) % WORDS.length), WORD_MS);
    return () => window.clearInterval(id);
  }, []);

  return (
    <section className="lp-hero" aria-labelledby="lp-hero-title">
      <div className="lp-wrap">
        <div>
          <span className="lp-pill">
            <span className="lp-dot" aria-hidden="true" /> Live chat, AI and analytics in one place
          </span>
          <h1 id="lp-hero-title">
            The smarter way to
            <br />
            <span className="lp-word" key={WORDS[index]}>
              {WORDS[index]}
            </span>{' '}
            with every visitor
          </h1>
          <p className="lp-lead">
            Chat with customers in real time, let an AI assistant that learns from your team answer the rest, and see exactly
            what your visitors need — in 50+ languages, with enterprise-grade security.
          </p>
          <div className="lp-cta-row">
            <Link to="/register" className="lp-btn lp-btn-primary lp-btn-lg">
              Start Free Trial
            </Link>
            <a href="#demo" className="lp-btn lp-btn-ghost lp-btn-lg">
              See it in action
            </a>
          </div>
          <ul className="lp-fine">
            <li>14-day free trial</li>
            <li>No credit card required</li>
            <li>Setup in 5 minutes</li>
          </ul>
          <dl className="lp-counters">
            <Counter label="Conversations handled" target={12.5} suffix="M+" decimals={1} />
            <Counter label="Customer satisfaction" target={4.8} suffix="/5" decimals={1} />
            <Counter label="Languages supported" target={50} suffix="+" />
          </dl>
        </div>
        <div className="lp-hero-card" aria-hidden="true">
          <header>
            <strong>Hi there! 👋</strong>
            We&apos;re here to help · Typically replies in minutes
          </header>
          <div className="lp-bubbles">
            <div className="lp-bubble agent">Hello! How can we assist you today?</div>
            <div className="lp-bubble visitor">Do you ship to Canada?</div>
            <div className="lp-bubble agent">Yes! Orders to Canada arrive in 3–5 business days. 🚚</div>
            <div className="lp-bubble visitor">Perfect, thanks!</div>
          </div>
        </div>
      </div>
    </section>
  );
}

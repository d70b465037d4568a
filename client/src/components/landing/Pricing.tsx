import { Link } from '@tanstack/react-router';

const PLANS = [
  {
    name: 'Starter',
    price: '$0',
    period: 'forever',
    blurb: 'For trying Parley on a small site.',
    features: ['Up to 100 monthly chats', 'Basic widget', 'Email support', 'Standard integrations', 'Basic analytics'],
    cta: 'Get Started Free',
  },
  {
    name: 'Professional',
    price: '$49',
    period: 'per month',
    blurb: 'Everything a growing team needs.',
    features: ['Unlimited chats', 'AI chatbot', 'Advanced analytics', 'Priority support', 'Custom branding', 'Team collaboration'],
    cta: 'Start Free Trial',
    featured: true,
  },
  {
    name: 'Enterprise',
    price: 'Custom',
    period: 'pricing',
    blurb: 'Security, scale and a dedicated partner.',
    features: ['Everything in Professional', 'Dedicated account manager', 'Single sign-on on request', 'Custom integrations', 'Uptime SLA'],
    cta: 'Contact Sales',
  },
];

/** Pricing cards; every button goes to /register. */
export function Pricing() {
  return (
    <section className="lp-section alt" id="pricing" aria-labelledby="lp-pricing-title">
      <div className="lp-wrap">
        <h2 id="lp-pricing-title">Simple, transparent pricing</h2>
        <p className="lp-sub">Start with a 14-day free trial of Professional. No credit card required.</p>
        <div className="lp-plans">
          {PLANS.map((p) => (
            <article key={p.name} className={`lp-plan${p.featured ? ' featured' : ''}`} aria-labelledby={`lp-plan-${p.name}`}>
              {p.featured && <span className="lp-badge">Most Popular</span>}
              <h3 id={`lp-plan-${p.name}`}>{p.name}</h3>
              <p className="lp-price">
                {p.price} <small>{p.period}</small>
              </p>
              <p>{p.blurb}</p>
              <ul>
                {p.features.map((f) => (
                  <li key={f}>{f}</li>
                ))}
              </ul>
              <Link
                to="/register"
                className={`lp-btn ${p.featured ? 'lp-btn-primary' : 'lp-btn-ghost'}`}
                aria-label={`${p.cta} with the ${p.name} plan`}
              >
                {p.cta}
              </Link>
            </article>
          ))}
        </div>
      </div>
    </section>
  );
}

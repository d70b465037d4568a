import type { ReactNode } from 'react';
import { Icon } from '../icons';

const FEATURES: { icon: ReactNode; title: string; text: string }[] = [
  { icon: <Icon.chat />, title: 'Real-time chat', text: 'See visitors arrive and answer them instantly, with images, typing indicators and history.' },
  { icon: <Icon.bot />, title: 'AI automation', text: 'An assistant that learns from your replies and answers when your team is away.' },
  { icon: <Icon.dashboard />, title: 'Analytics', text: 'Visitors, chats, devices and response times, at a glance.' },
  { icon: <Icon.users />, title: 'Team collaboration', text: 'Invite agents, assign visitors and decide who sees what.' },
  { icon: <Icon.globe />, title: '50+ languages', text: 'The widget speaks your visitors’ language automatically.' },
  { icon: <Icon.check />, title: 'Enterprise security', text: 'Hashed credentials, isolated accounts and strict browser security headers.' },
];

/** Resources / capabilities grid (the top bar's Resources link lands here). */
export function Features() {
  return (
    <section className="lp-section" id="resources" aria-labelledby="lp-features-title">
      <div className="lp-wrap">
        <h2 id="lp-features-title">Everything you need to delight customers</h2>
        <p className="lp-sub">One script on your site. One console for your team.</p>
        <ul className="lp-features">
          {FEATURES.map((f) => (
            <li className="lp-feature" key={f.title}>
              <span className="lp-icon" aria-hidden="true">{f.icon}</span>
              <h3>{f.title}</h3>
              <p>{f.text}</p>
            </li>
          ))}
        </ul>
      </div>
    </section>
  );
}

import type { ReactNode } from 'react';
import { useOnboarding } from '../../stores/onboarding';
import './onboarding.css';
import { WidgetPreview } from './WidgetPreview';

const STEPS = ['Customize widget', 'Greetings', 'Account info'];

/** Frame of the three wizard steps: progress, the step's form and the live preview. */
export function OnboardingShell({ step, title, subtitle, children, avatarUrl }: { step: 1 | 2 | 3; title: string; subtitle: string; children: ReactNode; avatarUrl?: string }) {
  const look = useOnboarding((s) => s.look);
  const greetings = useOnboarding((s) => s.greetings);
  return (
    <div className="ob">
      <main className="ob-main" id="main">
        <p className="ob-brand">
          <span className="ob-brand-mark" aria-hidden="true">P</span> Parley <span className="ob-brand-sub">· Set up your chat widget</span>
        </p>
        <ol className="ob-progress" aria-label="Onboarding progress">
          {STEPS.map((label, i) => (
            <li key={label} className={i + 1 < step ? 'done' : i + 1 === step ? 'current' : ''} aria-current={i + 1 === step ? 'step' : undefined}>
              <span className="ob-step-num" aria-hidden="true">
                {i + 1 < step ? '✓' : i + 1}
              </span>
              <span>
                <span className="ob-sr">Step {i + 1}: </span>
                {label}
              </span>
            </li>
          ))}
        </ol>
        <section className="ob-card" aria-labelledby="ob-title">
          <h1 id="ob-title">{title}</h1>
          <p className="ob-sub">{subtitle}</p>
          {children}
        </section>
      </main>
      <WidgetPreview
        name={look.name}
        title={look.title}
        color={look.color}
        avatarUrl={avatarUrl ?? look.avatarUrl}
        initialGreeting={greetings.initial_greeting}
        followUpGreeting={greetings.follow_up_greeting}
      />
    </div>
  );
}
